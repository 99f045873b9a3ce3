"""Dice and a hidden hand: the smallest game of the shape the hot path is measured on.

Two seats take turns; every move rolls two dice and draws a card from a hidden,
shuffled deck into the mover's hand, which only that seat sees. The dice add to
the mover's score; after `moves` moves (default 40) the higher score wins.

Pig (tests/fixtures/pig) rolls one die per action and draws a card only on the
rare swap, so its actions are cheaper than this shape. This is the game the
boardgame.io side of `make bench` plays too (bench/bgio/game.js), move for move:
one player action, one roll of two dice, one private draw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from services.games.common import chance
from services.games.common.engine import Engine, IllegalAction, Outcome, ToMove, Visibility
from services.games.common.options import OptionSpec, parse_options

DEFAULT_MOVES = 40
MAX_MOVES = 2000


@dataclass(frozen=True)
class Move:
    """Roll the two dice and draw a card."""


@dataclass(frozen=True)
class DeckShuffled:
    size: int


@dataclass(frozen=True)
class MoveStarted:
    seat: int


@dataclass(frozen=True)
class DiceRolled:
    seat: int
    values: tuple[int, ...]


@dataclass(frozen=True)
class CardDrawn:
    """Only `seat` reads this event."""

    seat: int
    card: str


@dataclass(frozen=True)
class CardHidden:
    """What the other seats see of CardDrawn."""

    seat: int


@dataclass(frozen=True)
class View:
    scores: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    current: int
    moves_left: int
    # The viewer's own cards; empty for the other seat and spectators.
    my_hand: tuple[str, ...]
    finished: bool


@dataclass(frozen=True)
class State:
    seats: int
    moves: int
    deck_ready: bool = False
    made: int = 0
    current: int = 0
    # What the current move still waits for: "" (the seat's action), "dice", "card".
    pending: str = ""
    scores: tuple[int, ...] = ()
    hands: tuple[tuple[str, ...], ...] = ()


Event = DeckShuffled | MoveStarted | DiceRolled | CardDrawn | CardHidden


def deck(size: int) -> tuple[str, ...]:
    """One distinct card per move of the match, in canonical order."""
    return tuple(f"c{i}" for i in range(size))


class DiceHand:
    name = "dice_hand"
    min_seats = 2
    max_seats = 2
    options: tuple[OptionSpec, ...] = (
        OptionSpec.integer("moves", DEFAULT_MOVES, 1, MAX_MOVES, "Moves in the match, both seats together"),
    )

    def setup(self, config: Mapping[str, str], seats: int) -> State:
        moves = parse_options(self.options, config)["moves"]
        assert isinstance(moves, int)
        return State(seats=seats, moves=moves, scores=(0,) * seats, hands=((),) * seats)

    def to_move(self, state: State) -> ToMove:
        if not state.deck_ready:
            return ToMove(chance=chance.ShufflePile("deck", deck(state.moves)))
        if state.pending == "dice":
            return ToMove(chance=chance.RollDice(2, 6))
        if state.pending == "card":
            return ToMove(chance=chance.DrawCards("deck", 1, state.current))
        if state.made >= state.moves:
            return ToMove()
        return ToMove(seats=(state.current,))

    def legal_actions(self, state: State, seat: int) -> Sequence[Move]:
        return (Move(),) if self.to_move(state).seats == (seat,) else ()

    def decide(self, state: State, seat: int, action: object) -> Sequence[Event]:
        turn = self.to_move(state)
        if seat == chance.CHANCE_SEAT:
            return self._chance(state, turn, action)
        if seat not in turn.seats:
            raise IllegalAction("dice_hand.turn.not_your_turn", f"seat {seat} is not to move")
        if not isinstance(action, Move):
            raise IllegalAction("dice_hand.action.unknown", type(action).__name__)
        return (MoveStarted(seat),)

    def _chance(self, state: State, turn: ToMove, outcome: object) -> Sequence[Event]:
        match turn.chance, outcome:
            case chance.ShufflePile(), chance.PileShuffled(size=size):
                return (DeckShuffled(size),)
            case chance.RollDice(), chance.DiceRolled(values=values):
                return (DiceRolled(state.current, tuple(values)),)
            case chance.DrawCards(), chance.CardsDrawn(cards=(card,)):
                return (CardDrawn(state.current, card),)
        raise IllegalAction("dice_hand.chance.unexpected", "outcome does not answer the pending request")

    def evolve(self, state: State, event: Event) -> State:
        match event:
            case DeckShuffled():
                return replace(state, deck_ready=True)
            case MoveStarted():
                return replace(state, pending="dice")
            case DiceRolled(seat=seat, values=values):
                scores = tuple(s + sum(values) if i == seat else s for i, s in enumerate(state.scores))
                return replace(state, scores=scores, pending="card")
            case CardDrawn(seat=seat, card=card):
                hands = tuple((*h, card) if i == seat else h for i, h in enumerate(state.hands))
                # The move is over: the other seat's turn.
                return replace(
                    state, hands=hands, pending="", made=state.made + 1, current=(state.current + 1) % state.seats
                )
            case CardHidden():
                return state
        raise TypeError(event)

    def visibility(self, event: Event) -> Visibility:
        return Visibility.only(event.seat) if isinstance(event, CardDrawn) else Visibility.public()

    def redact(self, event: Event) -> Event | None:
        return CardHidden(event.seat) if isinstance(event, CardDrawn) else None

    def view(self, state: State, viewer: int | None) -> View:
        mine = state.hands[viewer] if viewer is not None and viewer < state.seats else ()
        return View(
            scores=state.scores,
            hand_sizes=tuple(len(h) for h in state.hands),
            current=state.current,
            moves_left=state.moves - state.made,
            my_hand=mine,
            finished=self.result(state) is not None,
        )

    def result(self, state: State) -> Outcome | None:
        if not state.deck_ready or state.pending or state.made < state.moves:
            return None
        ranking = tuple(1 + sum(other > mine for other in state.scores) for mine in state.scores)
        return Outcome(ranking=ranking, scores=state.scores)


ENGINE: Engine[State, Move, Event] = DiceHand()
ACTION_TYPES = (Move,)
EVENT_TYPES = (DeckShuffled, MoveStarted, DiceRolled, CardDrawn, CardHidden)
