"""Game options as data: every engine declares them, setup enforces exactly them,
and DescribeGame advertises them."""

from __future__ import annotations

import pytest
from tabletop.common.v1 import common_pb2
from tabletop.rules.v1 import rules_service_pb2 as rpb

from services.common.errors import InvalidArgument
from services.games import registry
from services.games.common.engine import InvalidConfig
from services.games.common.options import OptionSpec, OptionType, parse_options
from services.rules.app import EngineHost
from services.rules.servicer import RulesServicer
from tests.fixtures import pig

ROUNDS = OptionSpec.integer("rounds", 10, 1, 100, "rounds")
SPECS = (
    OptionSpec.choice("map", ("small", "large"), "small", "the map"),
    OptionSpec.boolean("fog", False, "fog of war"),
    ROUNDS,
    OptionSpec.string("label", "", "free text"),
)


def test_parse_fills_defaults_with_typed_values() -> None:
    assert parse_options(SPECS, {}) == {"map": "small", "fog": False, "rounds": 10, "label": ""}
    assert parse_options(SPECS, {"map": "large", "fog": "true", "rounds": "100", "label": "x y"}) == {
        "map": "large", "fog": True, "rounds": 100, "label": "x y"}


@pytest.mark.parametrize(
    "config, option",
    [
        ({"colour": "red"}, "colour"),
        ({"map": "huge"}, "map"),
        ({"fog": "yes"}, "fog"),
        ({"rounds": "0"}, "rounds"),
        ({"rounds": "101"}, "rounds"),
        ({"rounds": "-5"}, "rounds"),
        ({"rounds": "ten"}, "rounds"),
        ({"rounds": ""}, "rounds"),
        ({"rounds": "1" * 60}, "rounds"),
        ({"rounds": "٣"}, "rounds"),  # a non-ASCII digit
    ],
)
def test_parse_refuses_naming_the_option(config: dict[str, str], option: str) -> None:
    with pytest.raises(InvalidConfig) as refused:
        parse_options(SPECS, config)
    assert refused.value.option == option
    assert option in str(refused.value)


@pytest.mark.parametrize(
    "build",
    [
        lambda: OptionSpec(name="x", type=OptionType.CHOICE, default="a", description=""),
        lambda: OptionSpec.choice("x", ("a",), "b", ""),
        lambda: OptionSpec.integer("x", 5, 6, 9, ""),
        lambda: OptionSpec.integer("x", 1, 1, 10**12, ""),
        lambda: OptionSpec(name="x", type=OptionType.INT, default="1", description="", minimum=1),
        lambda: OptionSpec(name="x", type=OptionType.BOOL, default="true", description="", maximum=3),
    ],
)
def test_a_spec_that_contradicts_itself_is_a_programming_error(build: object) -> None:
    with pytest.raises(ValueError):
        build()  # type: ignore[operator]


def engines() -> list[object]:
    return [registry.game(name).engine for name in registry.GAMES] + [pig.ENGINE]


@pytest.mark.parametrize("engine", engines(), ids=lambda e: e.name)  # type: ignore[attr-defined]
def test_every_engine_sets_up_with_its_defaults_spelled_out(engine: object) -> None:
    specs = engine.options  # type: ignore[attr-defined]
    assert specs and len({s.name for s in specs}) == len(specs)
    seats = engine.min_seats if engine.min_seats > 1 else 2  # type: ignore[attr-defined]
    explicit = {s.name: s.default for s in specs}
    assert engine.setup(explicit, seats) == engine.setup({}, seats)  # type: ignore[attr-defined]


@pytest.mark.parametrize("engine", engines(), ids=lambda e: e.name)  # type: ignore[attr-defined]
def test_every_engine_refuses_an_unknown_option_by_name(engine: object) -> None:
    with pytest.raises(InvalidConfig) as refused:
        engine.setup({"no_such_option": "1"}, 2)  # type: ignore[attr-defined]
    assert refused.value.option == "no_such_option"


@pytest.mark.parametrize(
    "game, option, bad",
    [
        ("el_dorado", "course", "atlantis"),
        ("el_dorado", "caves", "yes"),
        ("el_dorado", "max_rounds", "0"),
        ("el_dorado", "max_rounds", "1001"),
        ("el_dorado", "max_rounds", "9" * 60),
        ("la_isla", "deck", "expert"),
        ("discover", "scenario", "nowhere"),
        ("discover", "max_days", "0"),
        ("discover", "max_days", "9" * 60),
        ("discover", "characters", "1,1"),
    ],
)
def test_engines_refuse_bad_values_naming_the_option(game: str, option: str, bad: str) -> None:
    with pytest.raises(InvalidConfig) as refused:
        registry.game(game).engine.setup({option: bad}, 2)
    assert refused.value.option == option


def test_each_game_declares_its_options() -> None:
    declared = {name: {s.name: s for s in registry.game(name).engine.options} for name in registry.GAMES}
    assert set(declared["el_dorado"]) == {"course", "caves", "max_rounds"}
    assert declared["el_dorado"]["course"].choices[0] == "first_game"
    assert declared["el_dorado"]["caves"].type is OptionType.BOOL
    assert declared["el_dorado"]["max_rounds"].maximum == 1000
    assert set(declared["la_isla"]) == {"deck"}
    assert declared["la_isla"]["deck"].choices == ("beginner", "full")
    assert set(declared["discover"]) == {"scenario", "max_days", "characters"}
    assert declared["discover"]["characters"].type is OptionType.STRING


async def test_setup_refusal_is_invalid_argument_naming_the_option() -> None:
    servicer = RulesServicer(EngineHost(registry.game("el_dorado")))
    request = rpb.SetupRequest(game="el_dorado", config={"max_rounds": "9" * 60}, seat_count=2)
    with pytest.raises(InvalidArgument) as refused:
        await servicer.Setup(request, None)
    assert "max_rounds" in refused.value.message
    assert refused.value.reason == "config" and refused.value.metadata == {"option": "max_rounds"}


async def test_describe_game_carries_the_option_schema() -> None:
    servicer = RulesServicer(EngineHost(registry.game("el_dorado")))
    described = await servicer.DescribeGame(rpb.DescribeGameRequest(), None)
    by_name = {o.name: o for o in described.options}
    assert [o.name for o in described.options] == ["course", "caves", "max_rounds"]
    assert by_name["course"].type == common_pb2.OPTION_TYPE_CHOICE
    assert "hills_of_gold" in by_name["course"].allowed_values and by_name["course"].default == "first_game"
    assert by_name["caves"].type == common_pb2.OPTION_TYPE_BOOL and by_name["caves"].default == "false"
    rounds = by_name["max_rounds"]
    assert rounds.type == common_pb2.OPTION_TYPE_INT and (rounds.min, rounds.max) == (1, 1000)
    assert rounds.default == "200" and rounds.description
    assert not by_name["course"].HasField("min")
