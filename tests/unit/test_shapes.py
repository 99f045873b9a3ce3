"""The supported deployment shapes, named in one table and checked once when a process
loads its settings (services/common/config.py)."""

from __future__ import annotations

import pathlib

import pytest

from deploy.stack import Stack
from services.common import config
from services.common.config import SHAPES, Transport


def env_of(match: str = "grpc", rules: str = "grpc", dice: str = "grpc", deck: str = "grpc") -> dict[str, str]:
    return {"TABLETOP_MATCH_TRANSPORT": match, "TABLETOP_RULES_TRANSPORT": rules,
            "TABLETOP_DICE_TRANSPORT": dice, "TABLETOP_DECK_TRANSPORT": deck}


def test_no_transport_set_is_the_reference_shape() -> None:
    assert config.shape_of(config.load({})).name == "services"


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_each_named_shape_loads_as_itself(shape: config.Shape) -> None:
    settings = config.load(env_of(shape.match, shape.rules, shape.dice, shape.deck))
    assert config.shape_of(settings) == shape
    assert isinstance(settings.rules_transport, Transport)


def test_the_shapes_of_the_launcher_and_the_bench_are_named() -> None:
    # deploy/stack.py: services; inprocess with the match in the gateway or in its own process.
    assert {s.name for s in SHAPES} >= {"services", "inprocess", "match-local"}


@pytest.mark.parametrize("mix", [
    env_of(match="inprocess"),  # the gateway's match would call rules it cannot be trusted by
    env_of(dice="inprocess"),  # rules apart would resolve through dice that are not there
    env_of(rules="inprocess", deck="inprocess"),
])
def test_a_mix_no_shape_names_is_refused_at_start_with_the_shapes_listed(mix: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="not a supported deployment shape") as refused:
        config.load(mix)
    assert all(s.name in str(refused.value) for s in SHAPES)


def test_an_unknown_transport_is_refused_not_read_as_grpc() -> None:
    with pytest.raises(ValueError, match="TABLETOP_RULES_TRANSPORT='inproc': expected grpc or inprocess"):
        config.load({"TABLETOP_RULES_TRANSPORT": "inproc"})


def test_the_launcher_chooses_a_shape_by_its_name(tmp_path: pathlib.Path) -> None:
    def stack(shape: str) -> Stack:
        return Stack(shape=shape, workdir=tmp_path / shape, data_dir=tmp_path / f"{shape}-data")

    assert [stack(s.name).embeds_match for s in SHAPES] == [s.match == Transport.INPROCESS for s in SHAPES]
    with pytest.raises(ValueError, match="no deployment shape 'in-process'; the shapes are: services, rules-local"):
        stack("in-process")
