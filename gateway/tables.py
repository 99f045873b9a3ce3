"""The games this gateway offers, and whether a table of one can be played.

A table (game, seat range, options) is checked against what the game's rules
declare in DescribeGame: its seat range and its option schema, parsed by the
same rules the engine's own setup applies (services/games/common/options.py).
The declaration does not change while a rules process runs, so it is asked once
per game. A string option is free text here: only the engine judges its shape.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tabletop.common.v1 import common_pb2
from tabletop.rules.v1 import rules_service_pb2 as rpb

from services.common.errors import InvalidArgument
from services.common.rpc.ports import RulesPort
from services.common.table_options import table_option_messages
from services.games.common.options import InvalidConfig, OptionSpec, OptionType, parse_options

_OPTION_TYPES = {
    common_pb2.OPTION_TYPE_CHOICE: OptionType.CHOICE,
    common_pb2.OPTION_TYPE_BOOL: OptionType.BOOL,
    common_pb2.OPTION_TYPE_INT: OptionType.INT,
    common_pb2.OPTION_TYPE_STRING: OptionType.STRING,
}


def option_spec(option: common_pb2.GameOption) -> OptionSpec:
    """The spec a declared option was made from (a type this gateway does not know reads as free text)."""
    kind = _OPTION_TYPES.get(option.type, OptionType.STRING)
    return OptionSpec(
        option.name,
        kind,
        option.default,
        option.description,
        choices=tuple(option.allowed_values) if kind is OptionType.CHOICE else (),
        minimum=option.min if kind is OptionType.INT else None,
        maximum=option.max if kind is OptionType.INT else None,
    )


def check_options(declared: Sequence[common_pb2.GameOption], options: Mapping[str, str], field: str) -> None:
    """InvalidArgument naming the first option the declaration refuses (unknown, or a value not allowed)."""
    check_against([option_spec(option) for option in declared], options, field)


def check_against(specs: Sequence[OptionSpec], options: Mapping[str, str], field: str) -> None:
    """check_options on the specs the declaration was read into."""
    try:
        parse_options(specs, options)
    except InvalidConfig as bad:
        detail = f"{field}[{bad.option}]: {bad}" if bad.option else f"bad option: {bad}"
        raise InvalidArgument(detail, field, {"option": bad.option} if bad.option else None) from None


class GameCatalog:
    """The hosted games, each through its rules client."""

    def __init__(self, rules: Mapping[str, RulesPort]) -> None:
        self._rules = dict(rules)
        # Each game's declaration, with its options and the table's read into specs once
        # (every ticket and table is checked against them).
        self._tables: dict[str, tuple[rpb.DescribeGameResponse, list[OptionSpec]]] = {}

    def names(self) -> list[str]:
        return sorted(self._rules)

    async def describe(self, game: str) -> rpb.DescribeGameResponse:
        """What the game's rules say of it, now."""
        rules = self._rules.get(game)
        if rules is None:
            raise InvalidArgument(f"unknown game {game!r}; known: {', '.join(self.names())}", "game")
        return await rules.DescribeGame(rpb.DescribeGameRequest())

    async def check_table(self, game: str, low: int, high: int, options: Mapping[str, str], field: str) -> None:
        """InvalidArgument unless the game seats `low` to `high` players and accepts `options`."""
        known = self._tables.get(game)
        if known is None:
            info = await self.describe(game)
            known = self._tables[game] = (info, [option_spec(o) for o in (*info.options, *table_option_messages())])
        info, specs = known
        if not info.min_seats <= low <= high <= info.max_seats:
            raise InvalidArgument(
                f"{game} seats {info.min_seats}-{info.max_seats} players; asked {low}-{high}", "players"
            )
        check_against(specs, options, field)
