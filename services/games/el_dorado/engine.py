"""The El Dorado engine: binds the pure functions to the platform's Engine protocol."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from services.games.common.chance import ChanceOutcome
from services.games.common.engine import Outcome, ToMove, Visibility
from services.games.common.options import OptionSpec
from services.games.el_dorado import events as ev
from services.games.el_dorado.actions import Action
from services.games.el_dorado.decide import decide
from services.games.el_dorado.evolve import evolve
from services.games.el_dorado.flow import to_move
from services.games.el_dorado.legal import legal_actions
from services.games.el_dorado.result import result
from services.games.el_dorado.setup import OPTIONS, setup
from services.games.el_dorado.state import State
from services.games.el_dorado.view import View, view


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


@dataclass(frozen=True)
class ElDoradoEngine:
    """The Quest for El Dorado (Knizia, Ravensburger 2017), base game and caves variant."""

    name: str = "el_dorado"
    min_seats: int = 2
    max_seats: int = 4
    options: tuple[OptionSpec, ...] = OPTIONS

    def setup(self, config: Mapping[str, str], seats: int) -> State:
        return setup(config, seats)

    def to_move(self, state: State) -> ToMove:
        return to_move(state)

    def legal_actions(self, state: State, seat: int) -> Sequence[Action]:
        return legal_actions(state, seat)

    def decide(self, state: State, seat: int, action: Action | ChanceOutcome) -> Sequence[ev.Event]:
        return decide(state, seat, action)

    def evolve(self, state: State, event: ev.Event) -> State:
        return evolve(state, event)

    def visibility(self, event: ev.Event) -> Visibility:
        return visibility(event)

    def redact(self, event: ev.Event) -> ev.Event | None:
        return redact(event)

    def view(self, state: State, viewer: int | None) -> View:
        return view(state, viewer)

    def result(self, state: State) -> Outcome | None:
        return result(state)


ENGINE = ElDoradoEngine()
