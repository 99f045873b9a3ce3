"""The gateway checks a table against the options a game declares, as its setup would."""

from __future__ import annotations

import asyncio

import pytest
from tabletop.common.v1 import common_pb2
from tabletop.rules.v1 import rules_service_pb2 as rpb

from gateway.tables import GameCatalog, check_options, option_spec
from services.common.errors import InvalidArgument
from services.games.common.options import OptionSpec

SPECS = (
    OptionSpec.choice("scenario", ("a", "b"), "a", "which scenario"),
    OptionSpec.boolean("fast", False, "shorter games"),
    OptionSpec.integer("days", 10, 1, 365, "how long"),
    OptionSpec.string("label", "", "free text"),
)
# As the rules service declares them in DescribeGame.
DECLARED = [
    common_pb2.GameOption(
        name="scenario", type=common_pb2.OPTION_TYPE_CHOICE, allowed_values=["a", "b"], default="a",
        description="which scenario",
    ),
    common_pb2.GameOption(name="fast", type=common_pb2.OPTION_TYPE_BOOL, default="false", description="shorter games"),
    common_pb2.GameOption(
        name="days", type=common_pb2.OPTION_TYPE_INT, default="10", description="how long", min=1, max=365
    ),
    common_pb2.GameOption(name="label", type=common_pb2.OPTION_TYPE_STRING, default="", description="free text"),
]


def test_a_declared_option_reads_back_as_the_spec_it_was_made_from() -> None:
    assert tuple(option_spec(message) for message in DECLARED) == SPECS


def test_acceptable_options_pass() -> None:
    check_options(DECLARED, {"scenario": "b", "fast": "true", "days": "365", "label": "anything"}, "options")
    check_options(DECLARED, {}, "options")


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"deck": "full"}, "deck"),
        ({"scenario": "c"}, "scenario"),
        ({"fast": "yes"}, "fast"),
        ({"days": "0"}, "days"),
        ({"days": "x"}, "days"),
    ],
)
def test_unknown_options_and_values_not_allowed_are_invalid_arguments(options: dict[str, str], named: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        check_options(DECLARED, options, "options")
    assert refused.value.reason == "options"
    assert named in refused.value.message


class _Rules:
    def __init__(self) -> None:
        self.described = 0

    async def DescribeGame(self, request: rpb.DescribeGameRequest) -> rpb.DescribeGameResponse:
        self.described += 1
        return rpb.DescribeGameResponse(game="g", min_seats=2, max_seats=4, options=DECLARED)


def test_a_table_is_checked_against_the_seats_and_options_the_rules_declare_once() -> None:
    rules = _Rules()
    catalog = GameCatalog({"g": rules})  # type: ignore[dict-item]

    async def run() -> None:
        await catalog.check_table("g", 2, 4, {"days": "3"}, "options")
        for game, low, high, options in [("h", 2, 2, {}), ("g", 1, 2, {}), ("g", 2, 5, {}), ("g", 2, 2, {"x": "1"})]:
            with pytest.raises(InvalidArgument):
                await catalog.check_table(game, low, high, options, "options")

    asyncio.run(run())
    assert rules.described == 1
