"""Who may read an El Dorado event, and what the others see of it."""

from __future__ import annotations

from services.games.common.engine import Visibility
from services.games.el_dorado import events as ev


def visibility(event: ev.Event) -> Visibility:
    """Drawn cards are seen by their owner only; everything else is public."""
    if isinstance(event, ev.CardsDrawnToHand):
        return Visibility.only(event.seat)
    return Visibility.public()


def redact(event: ev.Event) -> ev.Event | None:
    """Others learn only how many cards were drawn."""
    if isinstance(event, ev.CardsDrawnToHand):
        return ev.CardsDrawnUnseen(event.seat, len(event.cards))
    return None
