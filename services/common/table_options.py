"""Table options: what every match may set beside its game's own options.

A match's config holds both. The platform's keys are declared here once, as
`OptionSpec`s, so the gateway lists them with every game's options (ListGames)
and checks them as it checks the game's, and the match service hands the rules
only the game's part (`game_config`): an engine never sees a table option.

Turn clocks (the match service runs them, services/match/clocks.py):
- `clock`: none, move (every decision gets `clock_seconds`) or game (each seat
  has a bank of `clock_seconds`, plus `clock_increment` after each of its moves);
- `clock_timeout`: what a seat whose time ran out plays: pass (the game's most
  passive legal move, a bot move where it has none), bot (a random legal move)
  or forfeit (the match ends, the seat ranked last).
"""

from __future__ import annotations

from collections.abc import Mapping

from tabletop.common.v1 import common_pb2

from services.games.common.options import InvalidConfig, OptionSpec, OptionType, parse_options

CLOCK_MODES = ("none", "move", "game")
TIMEOUT_POLICIES = ("pass", "bot", "forfeit")

TABLE_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec.choice(
        "clock", CLOCK_MODES, "none",
        "turn clock: none, move (clock_seconds per decision) or game (a bank of clock_seconds per seat)",
    ),
    OptionSpec.integer(
        "clock_seconds", 60, 5, 7 * 24 * 3600, "seconds per decision (clock=move) or per seat's bank (clock=game)"
    ),
    OptionSpec.integer(
        "clock_increment", 0, 0, 3600, "seconds added to a seat's bank after each of its moves (clock=game)"
    ),
    OptionSpec.choice(
        "clock_timeout", TIMEOUT_POLICIES, "pass",
        "when a seat's time runs out: pass (a bot move where the game has no pass), bot, or forfeit",
    ),
)

TABLE_KEYS = frozenset(spec.name for spec in TABLE_OPTIONS)


_OPTION_TYPES = {
    OptionType.CHOICE: common_pb2.OPTION_TYPE_CHOICE,
    OptionType.BOOL: common_pb2.OPTION_TYPE_BOOL,
    OptionType.INT: common_pb2.OPTION_TYPE_INT,
    OptionType.STRING: common_pb2.OPTION_TYPE_STRING,
}


def option_message(spec: OptionSpec) -> common_pb2.GameOption:
    """The contract's form of an option (a game's, in DescribeGame, or a table's)."""
    message = common_pb2.GameOption(
        name=spec.name,
        type=_OPTION_TYPES[spec.type],
        allowed_values=spec.choices,
        default=spec.default,
        description=spec.description,
    )
    if spec.minimum is not None:
        message.min = spec.minimum
    if spec.maximum is not None:
        message.max = spec.maximum
    return message


def table_option_messages() -> list[common_pb2.GameOption]:
    """The table options as clients see them, after each game's own."""
    return [option_message(spec) for spec in TABLE_OPTIONS]


def game_config(config: Mapping[str, str]) -> dict[str, str]:
    """The part of a match's config its game's rules read."""
    return {key: value for key, value in config.items() if key not in TABLE_KEYS}


def table_config(config: Mapping[str, str]) -> dict[str, str | bool | int]:
    """Every table option's typed value, defaults filled in; InvalidConfig naming a bad one."""
    return parse_options(TABLE_OPTIONS, {k: v for k, v in config.items() if k in TABLE_KEYS})


__all__ = [
    "CLOCK_MODES",
    "TABLE_KEYS",
    "TABLE_OPTIONS",
    "TIMEOUT_POLICIES",
    "InvalidConfig",
    "game_config",
    "option_message",
    "table_config",
    "table_option_messages",
]
