"""The initial state (RB p.2); blockades, caves and decks are shuffled by chance requests."""

from __future__ import annotations

from collections.abc import Mapping

from services.games.common.options import OptionSpec, parse_options
from services.games.el_dorado import content
from services.games.el_dorado.board import board
from services.games.el_dorado.state import Phase, Player, State

MAX_ROUNDS = 1000
# A safety cap, not a rule ("Fin del juego": the race ends only when someone reaches
# El Dorado). The default is twice the longest of 60 measured games of the tests' greedy
# racing bot (97 rounds; RULES.md decision 11); a game it stops is stopped, never rated.
DEFAULT_MAX_ROUNDS = 200

OPTIONS = (
    OptionSpec.choice(
        "course", tuple(content.courses()), "first_game", "The course to race on; first_game is the one to learn on"
    ),
    OptionSpec.boolean("caves", False, "The caves variant: cave tokens next to mountain spaces"),
    OptionSpec.integer(
        "max_rounds",
        DEFAULT_MAX_ROUNDS,
        1,
        MAX_ROUNDS,
        "Safety cap: rounds after which a race nobody has won is stopped (no winner, no loser, never rated)",
    ),
)


def _options(config: Mapping[str, str]) -> tuple[str, bool, int]:
    values = parse_options(OPTIONS, config)
    return str(values["course"]), bool(values["caves"]), int(values["max_rounds"])


def _starts(seats: int) -> tuple[tuple[int, ...], ...]:
    """Start space numbers (0-based) per seat: two pieces each with two players (RB p.5)."""
    if seats == 2:
        return ((0, 2), (1, 3))
    return tuple((seat,) for seat in range(seats))


def setup(config: Mapping[str, str], seats: int) -> State:
    """A match before its chance setup: decks wait in the discard piles to be shuffled."""
    course, caves, max_rounds = _options(config)
    starts = board(course).starts
    players = tuple(
        Player(
            discard=content.starting_deck(),
            pieces=tuple(starts[i] for i in numbers),
            near_caves=tuple(frozenset() for _ in numbers),
        )
        for numbers in _starts(seats)
    )
    stock = tuple(content.cards()[c].copies for c in content.market_types())
    on_board = tuple(c for c in content.market_types() if content.cards()[c].market == "board")
    return State(seats, course, caves, max_rounds, Phase.SETUP, players, stock, on_board)
