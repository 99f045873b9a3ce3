"""The generic engine host: the rules every game shares, checked once for all.

A game declares itself with one `GameDeclaration` (its package's `GAME`): its
name, seat range, options, pure functions, its wire schema and the
sample setups its golden playthroughs use. `HostedEngine` turns a declaration
into the `Engine` the platform runs. Before a game's `decide` is called the host
has made sure that the move is one the position asks for, so `decide` handles
only the game's own rules: it receives either the action of a seat that
`to_move` lists, or a chance outcome that answers the pending request (the
right kind, pile, count, dice range or permutation size). Likewise a game's
`legal_actions` is asked only about a seat that `to_move` lists, and its
`setup` only for a seat count within the declared range.

The host's refusals have one style of rule id, stable and dotted, without a
game prefix (a game's own rules are `<game>.<area>.<rule>`):

    turn.game_over          nobody is asked to act any more: the game has ended
    turn.chance_pending     a seat acts while chance must answer a request first
    turn.not_your_seat      the seat is not among those asked to act
    chance.unexpected       the chance seat answers while no request is pending
    chance.mismatch         the chance seat's move does not answer the pending request
    chance.not_chance_seat  a player seat submits a chance outcome

The platform (the match service) makes its own checks before it calls the rules;
these are the rules-side guarantee, so an engine is safe on its own too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Generic, Protocol, TypeVar

from services.games.common import disclosure
from services.games.common.chance import (
    CHANCE_SEAT,
    OUTCOME_TYPES,
    CardsDrawn,
    CardsPut,
    ChanceOutcome,
    ChanceRequest,
    DiceRolled,
    DrawCards,
    Permute,
    Permuted,
    PileShuffled,
    PutCards,
    RollDice,
    ShufflePile,
)
from services.games.common.engine import IllegalAction, InvalidConfig, Outcome, ToMove, Visibility
from services.games.common.options import OptionSpec
from services.games.common.schema import GameSchema

S = TypeVar("S")
A = TypeVar("A")
E = TypeVar("E")

GAME_OVER = "turn.game_over"
CHANCE_PENDING = "turn.chance_pending"
NOT_YOUR_SEAT = "turn.not_your_seat"
CHANCE_UNEXPECTED = "chance.unexpected"
CHANCE_MISMATCH = "chance.mismatch"
NOT_CHANCE_SEAT = "chance.not_chance_seat"
HOST_RULES = (GAME_OVER, CHANCE_PENDING, NOT_YOUR_SEAT, CHANCE_UNEXPECTED, CHANCE_MISMATCH, NOT_CHANCE_SEAT)


@dataclass(frozen=True)
class Sample:
    """One reproducible setup of a game: seats, seed and options. The golden
    playthroughs (tests/golden) and the benchmarks play every game's samples."""

    seats: int
    seed: int
    config: Mapping[str, str] = field(default_factory=dict)


class Rng(Protocol):
    """The randomness a determinizer may use (a `random.Random` fits); engines never import `random`."""

    def random(self) -> float: ...

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int: ...

    def shuffle(self, x: list[str]) -> None: ...


@dataclass(frozen=True)
class Determinization(Generic[S]):
    """A whole state consistent with one seat's view, and the order of every hidden
    chance pile it holds (pile name -> cards, top first), as `LocalChance.piles` keeps them."""

    state: S
    piles: Mapping[str, Sequence[str]]


@dataclass(frozen=True)
class GameDeclaration(Generic[S, A, E]):
    """Everything the platform needs to know of one game, declared once.

    `decide` is only ever called through the host (see the module docstring).
    The registry builds the game's codec from `schema` and `state_types` on first
    use (`GameCodec.by_convention`), so the rules stay importable without the
    generated protos; `codec` names a module whose `CODEC` replaces it, for a game
    whose wire format needs code of its own.
    """

    name: str
    min_seats: int
    max_seats: int
    options: tuple[OptionSpec, ...]
    setup: Callable[[Mapping[str, str], int], S]
    to_move: Callable[[S], ToMove]
    # Called only for a seat that to_move lists (the host answers () for the others).
    legal_actions: Callable[[S, int], Sequence[A]]
    decide: Callable[[S, int, A | ChanceOutcome], Sequence[E]]
    evolve: Callable[[S, E], S]
    visibility: Callable[[E], Visibility]
    redact: Callable[[E], E | None]
    # A game's view is its own dataclass; its codec knows the type.
    view: Callable[[S, int | None], object]
    result: Callable[[S], Outcome | None]
    # The wire schema the protos are rendered from (tools/gen_game_protos.py).
    schema: GameSchema
    # What the opaque state blob holds: each module's own dataclasses and enums, and
    # each type listed (services/games/common/serde.py `state_codec`).
    state_types: tuple[ModuleType | type, ...]
    samples: tuple[Sample, ...] = ()
    # The table size most played: what the benchmarks and a client offer first.
    usual_seats: int | None = None
    # Seconds a matchmade table's clock gives each decision: the game's pace.
    decision_seconds: int = 60
    # The action types (class names, as the codec names their messages) that pass, most
    # passive first: what a seat whose turn clock ran out plays under the `pass` policy.
    passes: tuple[str, ...] = ()
    # The seats win or lose together against the game (its Outcome says `cooperative_win`),
    # as ListGames tells clients and the bots' evaluation reads it.
    cooperative: bool = False
    # A full state consistent with a seat's view (the game's View, as its codec decodes
    # it), every unknown sampled from what that seat cannot tell apart. Bots search with
    # it (bots, docs/bots.md), and the undo verdict replays a move in the worlds
    # it draws (`HostedEngine.discloses`); what the bots know beyond the rules is theirs
    # (bots/strategies). None: no search bot, and a move is judged
    # undoable by its events' audiences alone, which holds only for a game whose every
    # secret is dealt by chance into private events (the platform's test games).
    determinize: Callable[[Any, int, Rng], Determinization[S]] | None = None
    # A module whose `CODEC` is the game's wire format, where the one built by
    # convention does not fit; None for every game so far.
    codec: str | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.min_seats <= self.max_seats:
            raise ValueError(f"{self.name}: seats must be 1 <= min_seats <= max_seats")
        if self.schema.game != self.name:
            raise ValueError(f"{self.name}: its schema is {self.schema.game}'s")
        if self.usual_seats is not None and not self.min_seats <= self.usual_seats <= self.max_seats:
            raise ValueError(f"{self.name}: usual_seats {self.usual_seats} is out of its seat range")
        if self.decision_seconds < 1:
            raise ValueError(f"{self.name}: decision_seconds must be positive")
        for sample in self.samples:
            if not self.min_seats <= sample.seats <= self.max_seats:
                raise ValueError(f"{self.name}: a sample with {sample.seats} seats")

    @property
    def engine(self) -> HostedEngine[S, A, E]:
        """The game as the platform runs it: through the host's checks."""
        return HostedEngine(self)


def answers(request: ChanceRequest, outcome: object) -> bool:
    """True if `outcome` is a well-formed answer to `request`."""
    match request, outcome:
        case RollDice(count=count, faces=faces), DiceRolled(values=values):
            return len(values) == count and all(1 <= value <= faces for value in values)
        case Permute(n=n), Permuted(order=order):
            return sorted(order) == list(range(n))
        case ShufflePile(pile=pile, cards=cards), PileShuffled(pile=answered, size=size):
            return answered == pile and size == len(cards)
        case DrawCards(pile=pile, count=count), CardsDrawn(pile=answered, cards=cards):
            return answered == pile and len(cards) == count
        case PutCards(pile=pile), CardsPut(pile=answered):
            return answered == pile
    return False


def check_move(turn: ToMove, seat: int, move: object) -> None:
    """Refuse a move the position does not ask for; see the module docstring for the ids."""
    if not turn.seats and turn.chance is None:
        raise IllegalAction(GAME_OVER, "the game is over")
    if seat == CHANCE_SEAT:
        if turn.chance is None:
            raise IllegalAction(CHANCE_UNEXPECTED, "no chance request is pending")
        if not answers(turn.chance, move):
            raise IllegalAction(CHANCE_MISMATCH, f"that does not answer {type(turn.chance).__name__}")
        return
    if isinstance(move, OUTCOME_TYPES):
        raise IllegalAction(NOT_CHANCE_SEAT, "only the chance seat resolves chance")
    if turn.chance is not None:
        raise IllegalAction(CHANCE_PENDING, "chance must answer first")
    if seat not in turn.seats:
        raise IllegalAction(NOT_YOUR_SEAT, f"seat {seat} is not asked to act")


class HostedEngine(Generic[S, A, E]):
    """A declared game behind the host's checks; satisfies `Engine`."""

    def __init__(self, declaration: GameDeclaration[S, A, E]) -> None:
        self.declaration = declaration
        self.name = declaration.name
        self.min_seats = declaration.min_seats
        self.max_seats = declaration.max_seats
        self.options = declaration.options
        self.passes = declaration.passes
        self.cooperative = declaration.cooperative
        # The game's own functions where the host adds no check: a fold or a search calls
        # them thousands of times, and a forwarding method would double each call.
        self.to_move: Callable[[S], ToMove] = declaration.to_move
        self.evolve: Callable[[S, E], S] = declaration.evolve
        self.visibility: Callable[[E], Visibility] = declaration.visibility
        self.redact: Callable[[E], E | None] = declaration.redact
        # object as in Engine.view: each game's view is its own dataclass, which its codec knows.
        self.view: Callable[[S, int | None], object] = declaration.view
        self.result: Callable[[S], Outcome | None] = declaration.result

    def setup(self, config: Mapping[str, str], seats: int) -> S:
        """The game's initial state for a seat count within its range; InvalidConfig otherwise."""
        declared = self.declaration
        if not declared.min_seats <= seats <= declared.max_seats:
            raise InvalidConfig(f"{declared.name} is played by {declared.min_seats} to {declared.max_seats} seats")
        return declared.setup(config, seats)

    def legal_actions(self, state: S, seat: int) -> Sequence[A]:
        """The game's legal actions of a seat asked to act; none for any other seat."""
        if seat not in self.declaration.to_move(state).seats:
            return ()
        return self.declaration.legal_actions(state, seat)

    def decide(self, state: S, seat: int, action: A | ChanceOutcome) -> Sequence[E]:
        """The game's events for a move the position asks for; IllegalAction otherwise."""
        check_move(self.declaration.to_move(state), seat, action)
        return self.declaration.decide(state, seat, action)

    def discloses(
        self,
        move: tuple[S, int, A],
        caused: tuple[Sequence[E], S],
        seed: bytes,
        seen: tuple[object | None, object | None] = (None, None),
    ) -> bool:
        """Whether `move` (state, seat, action), which `caused` (its events, the state after),
        depended on anything hidden from its seat (services/games/common/disclosure.py);
        `seed` is the state's canonical bytes, `seen` the mover's views before and after
        where the caller has them (None: computed)."""
        return disclosure.discloses(self, move, caused, seed, seen)


__all__ = [
    "CHANCE_MISMATCH",
    "CHANCE_PENDING",
    "CHANCE_UNEXPECTED",
    "GAME_OVER",
    "HOST_RULES",
    "NOT_CHANCE_SEAT",
    "NOT_YOUR_SEAT",
    "Determinization",
    "GameDeclaration",
    "HostedEngine",
    "Rng",
    "Sample",
    "answers",
    "check_move",
]
