"""The Discover: Lands Unknown engine, bound to the platform's Engine protocol."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from services.games.common.chance import ChanceOutcome
from services.games.common.engine import Outcome, ToMove, Visibility
from services.games.discover import actions as act
from services.games.discover import events as ev
from services.games.discover.decide import decide as _decide
from services.games.discover.evolve import evolve as _evolve
from services.games.discover.flow import Kind, pending
from services.games.discover.legal import legal_actions as _legal
from services.games.discover.result import result as _result
from services.games.discover.setup import OPTIONS
from services.games.discover.setup import setup as _setup
from services.games.discover.state import State
from services.games.discover.view import View
from services.games.discover.view import view as _view


class DiscoverEngine:
    """Co-operative survival for 1-4 players; chance comes through dice and deck requests."""

    name = "discover"
    min_seats = 1
    max_seats = 4
    options = OPTIONS

    def setup(self, config: Mapping[str, str], seats: int) -> State:
        return _setup(config, seats)

    def to_move(self, state: State) -> ToMove:
        wait = pending(state)
        if wait.kind is Kind.CHANCE:
            return ToMove(chance=wait.chance)
        if wait.kind is Kind.DECIDE:
            return ToMove(seats=wait.seats)
        return ToMove()

    def legal_actions(self, state: State, seat: int) -> Sequence[act.Action]:
        return _legal(state, seat)

    def decide(self, state: State, seat: int, action: act.Action | ChanceOutcome) -> Sequence[ev.Event]:
        return _decide(state, seat, action)

    def evolve(self, state: State, event: ev.Event) -> State:
        return _evolve(state, event)

    def visibility(self, event: ev.Event) -> Visibility:
        match event:
            case ev.CharactersDealt(seat=seat) | ev.ProjectsDrawn(seat=seat) | ev.CharacterChosen(seat=seat):
                return Visibility.only(seat)
        return Visibility.public()

    def redact(self, event: ev.Event) -> ev.Event | None:
        match event:
            case ev.CharactersDealt(seat=seat, characters=cards):
                return ev.HiddenCardsDealt(seat, "characters", len(cards))
            case ev.ProjectsDrawn(seat=seat, projects=cards):
                return ev.HiddenCardsDealt(seat, "projects", len(cards))
            case ev.CharacterChosen(seat=seat):
                return ev.CharacterPicked(seat)
        return None

    def view(self, state: State, viewer: int | None) -> View:
        return _view(state, viewer)

    def result(self, state: State) -> Outcome | None:
        return _result(state)


ENGINE = DiscoverEngine()
