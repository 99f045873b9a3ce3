"""Who may read a Discover event, and what the others see of it."""

from __future__ import annotations

from services.games.common.engine import Visibility
from services.games.discover import events as ev


def visibility(event: ev.Event) -> Visibility:
    """Dealt and chosen cards are their seat's only; everything else is public."""
    match event:
        case ev.CharactersDealt(seat=seat) | ev.ProjectsDrawn(seat=seat) | ev.CharacterChosen(seat=seat):
            return Visibility.only(seat)
    return Visibility.public()


def redact(event: ev.Event) -> ev.Event | None:
    """The others learn how many cards were dealt, and that a character was picked."""
    match event:
        case ev.CharactersDealt(seat=seat, characters=cards):
            return ev.HiddenCardsDealt(seat, "characters", len(cards))
        case ev.ProjectsDrawn(seat=seat, projects=cards):
            return ev.HiddenCardsDealt(seat, "projects", len(cards))
        case ev.CharacterChosen(seat=seat):
            return ev.CharacterPicked(seat)
    return None
