"""Initial state per player count and match options (rulebook: Preparar)."""

from __future__ import annotations

from collections.abc import Mapping

from services.games.common.options import OptionSpec, parse_options
from services.games.la_isla.content import ANIMALS, COLOURS
from services.games.la_isla.rules import BASE_SLOTS, CONTENT, EXPLORERS_UNDER_C
from services.games.la_isla.state import Phase, Player, State

DECKS = {"beginner": (1,), "full": (1, 2)}
MIN_SEATS, MAX_SEATS = 2, 4

OPTIONS = (
    OptionSpec.choice(
        "deck", tuple(DECKS), "beginner", "The card deck: beginner (value-1 cards only) or full (all cards)"
    ),
)


def deck_cards(deck: str) -> tuple[str, ...]:
    """The card ids of a deck, sorted: value-1 cards only for beginners (Preparar)."""
    return tuple(sorted(c.id for c in CONTENT.cards if c.value in DECKS[deck]))


def new_player() -> Player:
    """A seat at setup: 5 explorers under C, one resource of each colour (Preparar)."""
    return Player(
        hand=(),
        slots=((),) * BASE_SLOTS,
        explorers_left=EXPLORERS_UNDER_C,
        explorers_gained=0,
        explorers=frozenset(),
        resources=(1,) * len(COLOURS),
        score=0,
        tiles=(0,) * len(ANIMALS),
        large=None,
        assignment=None,
        choice=None,
    )


def setup(config: Mapping[str, str], seats: int) -> State:
    """The state before the random setup (island, tiles, large tiles, piles) is drawn."""
    deck = str(parse_options(OPTIONS, config)["deck"])
    return State(
        seats=seats,
        deck=deck,
        phase=Phase.SETUP,
        round=1,
        start=0,  # seat 0 stands for the oldest player
        turn=0,
        layout=None,
        region_tiles=None,
        markers=(0,) * len(ANIMALS),
        players=(new_player(),) * seats,
        pile="",
        pile_size=0,
        pile_number=0,
        discard=(),
        drawn=0,
        pending_resources=0,
        pending_markers=0,
    )
