"""Redis key names. Every key of one match shares the hash tag `{match:<id>}`."""

from __future__ import annotations

FINISHED_STREAM = "tabletop:finished"
"""A global stream of {match_id, game} entries, one per finished match (at least once)."""


def match_stream(match_id: str) -> str:
    """Event-store stream name of a match (the store adds the braces)."""
    return f"match:{match_id}"


def _tag(match_id: str) -> str:
    return "{" + match_stream(match_id) + "}"


def dice_seed(match_id: str) -> str:
    return f"{_tag(match_id)}:seed"


def dice_revealed(match_id: str) -> str:
    """Set once the match's seed has been revealed: no draw is served after it."""
    return f"{_tag(match_id)}:seed-revealed"


def deck_pile(match_id: str, pile: str, counter: int) -> str:
    return f"{_tag(match_id)}:pile:{pile}:{counter}"


def deck_index(match_id: str) -> str:
    """Set of the match's pile keys, so a finished match's piles can be dropped."""
    return f"{_tag(match_id)}:piles"
