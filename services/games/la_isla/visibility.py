"""Who may read a La Isla event, and what the others see of it."""

from __future__ import annotations

from services.games.common.engine import Visibility
from services.games.la_isla.events import (
    CardsAssigned,
    CardsDrawnToHand,
    ChoiceMade,
    Event,
    HandRefilled,
    IncomeChosen,
    MarkerMovesChosen,
    Step,
)

SECRET_STEP = {CardsAssigned: Step.ASSIGN, IncomeChosen: Step.INCOME, MarkerMovesChosen: Step.ANIMALS}


def visibility(event: Event) -> Visibility:
    """Hands and secret choices are their seat's only; everything else is public."""
    if isinstance(event, (CardsDrawnToHand, CardsAssigned, IncomeChosen, MarkerMovesChosen)):
        return Visibility.only(event.seat)
    return Visibility.public()


def redact(event: Event) -> Event | None:
    """A draw shows its size; a secret choice shows only that the seat has chosen."""
    if isinstance(event, CardsDrawnToHand):
        return HandRefilled(event.seat, event.pile, len(event.cards))
    step = SECRET_STEP.get(type(event))
    if step is not None:
        return ChoiceMade(event.seat, step)  # type: ignore[union-attr]
    return None
