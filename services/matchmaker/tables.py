"""What a matchmade table gets unless its ticket says otherwise: pure, no I/O.

A table the matchmaker forms seats strangers, and any of them may leave (a
closed tab, a lost connection) while the others wait on that seat's move. So
by default a matchmade table runs a turn clock, and a seat whose time runs out
gets a bot's move (`clock_timeout=bot`, services/match/clocks.py): an absent
seat's turns are played out, one allowance per decision, and the table always
moves on. A ticket's own options override any of these (`clock=none` turns
the clock off), and ListGames shows each game's defaults beside its options
(`GameInfo.matchmade_options`).
"""

from __future__ import annotations

from collections.abc import Mapping

from services.games import registry

# Every game's matchmade table: a clock per decision, then a bot's move for the seat;
# the seconds are the game's own pace (`GameDeclaration.decision_seconds`).
DEFAULT_TABLE: Mapping[str, str] = {"clock": "move", "clock_seconds": "60", "clock_timeout": "bot"}
_CLOCK_KEYS = ("clock_seconds", "clock_increment", "clock_timeout")


def matchmade_defaults(game: str) -> dict[str, str]:
    """The table options a matchmade table of `game` gets when its tickets do not set them
    (a game this build lacks, hosted by its rules alone, gets the common pace)."""
    try:
        seconds = registry.declaration(game).decision_seconds
    except registry.UnknownGame:
        return dict(DEFAULT_TABLE)
    return {**DEFAULT_TABLE, "clock_seconds": str(seconds)}


def matchmade_options(game: str, options: Mapping[str, str]) -> dict[str, str]:
    """A ticket's options with the game's matchmade defaults under them. A ticket that turns the
    clock off (`clock=none`) gets none of the clock's other defaults either, so every such
    ticket of a game lands in the same pool whatever it left out."""
    merged = {**matchmade_defaults(game), **options}
    if merged.get("clock") == "none":
        for key in _CLOCK_KEYS:
            if key not in options:
                merged.pop(key, None)
    return merged
