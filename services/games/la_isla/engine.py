"""The La Isla engine: binds the pure functions to the Engine protocol."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from services.games.common.chance import ChanceOutcome
from services.games.common.engine import Outcome, ToMove, Visibility
from services.games.la_isla import decide as rules_decide
from services.games.la_isla import evolve as rules_evolve
from services.games.la_isla import result as rules_result
from services.games.la_isla import setup as rules_setup
from services.games.la_isla import view as rules_view
from services.games.la_isla.actions import Action
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
from services.games.la_isla.state import State

SECRET_STEP = {CardsAssigned: Step.ASSIGN, IncomeChosen: Step.INCOME, MarkerMovesChosen: Step.ANIMALS}


class LaIsla:
    """La Isla (Stefan Feld, alea 2014) for 2 to 4 players."""

    name = "la_isla"
    min_seats = rules_setup.MIN_SEATS
    max_seats = rules_setup.MAX_SEATS
    options = rules_setup.OPTIONS

    def setup(self, config: Mapping[str, str], seats: int) -> State:
        return rules_setup.setup(config, seats)

    def to_move(self, state: State) -> ToMove:
        return rules_decide.to_move(state)

    def legal_actions(self, state: State, seat: int) -> Sequence[Action]:
        return rules_decide.legal_actions(state, seat)

    def decide(self, state: State, seat: int, action: Action | ChanceOutcome) -> Sequence[Event]:
        return rules_decide.decide(state, seat, action)

    def evolve(self, state: State, event: Event) -> State:
        return rules_evolve.evolve(state, event)

    def visibility(self, event: Event) -> Visibility:
        """Hands and secret choices are their seat's only; everything else is public."""
        if isinstance(event, (CardsDrawnToHand, CardsAssigned, IncomeChosen, MarkerMovesChosen)):
            return Visibility.only(event.seat)
        return Visibility.public()

    def redact(self, event: Event) -> Event | None:
        """A draw shows its size; a secret choice shows only that the seat has chosen."""
        if isinstance(event, CardsDrawnToHand):
            return HandRefilled(event.seat, event.pile, len(event.cards))
        step = SECRET_STEP.get(type(event))
        if step is not None:
            return ChoiceMade(event.seat, step)  # type: ignore[union-attr]
        return None

    def view(self, state: State, viewer: int | None) -> rules_view.View:
        return rules_view.view(state, viewer)

    def result(self, state: State) -> Outcome | None:
        return rules_result.result(state)


ENGINE = LaIsla()
