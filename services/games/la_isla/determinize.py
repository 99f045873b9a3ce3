"""What a bot may believe about a match: whole states consistent with one seat's view.

Everything on the table is public in La Isla, covered cardholder cards included
(each was revealed face up when it was played), and so is the deck (the deck
option). What a seat cannot see is the other seats' hands, the cards they put
face down under B and D and not revealed yet, their secret choices of this
step, and the draw pile's order. Those cards are exactly the deck less the
discard pile, the cardholders and the seat's own cards; they are dealt here
uniformly at random, then the draw pile gets what is left in a random order.
A seat that has made its secret choice gets one drawn uniformly from its legal
ones in the sampled position (docs/bots.md).

An assignment's A card is read only when action A reveals it, and its B card
only when action B does: later in the round those fields hold a sampled
stand-in, which nothing reads.
"""

from __future__ import annotations

from collections import Counter

from services.games.common.host import Determinization, Rng
from services.games.common.values import replace
from services.games.la_isla import steps
from services.games.la_isla.actions import AdvanceMarkers, CollectIncome
from services.games.la_isla.setup import deck_cards
from services.games.la_isla.state import Assignment, Phase, Player, State
from services.games.la_isla.view import PlayerView, View

# Face-down cards a seat holds beside its hand once it has assigned: A, B, D, then B, D, then D.
FACE_DOWN = {Phase.ASSIGN: 3, Phase.INCOME: 2, Phase.EXPLORE: 1, Phase.ANIMALS: 1}


def _stacks(p: PlayerView) -> tuple[tuple[str, ...], ...]:
    return tuple((*slot.below, slot.top) if slot.top is not None else () for slot in p.slots)


def _face_down(view: View, assignment: Assignment | None) -> tuple[str, ...]:
    """The viewer's own assigned cards still face down."""
    if assignment is None:
        return ()
    cards = (assignment.a, assignment.b, assignment.d)
    return cards[3 - FACE_DOWN.get(view.phase, 0) :]


def _unseen(view: View) -> list[str]:
    """Every card the viewer cannot place: other hands, their face-down cards, the draw pile."""
    left = Counter(deck_cards(view.deck))
    left.subtract(view.discard)
    left.subtract(card for p in view.players for stack in _stacks(p) for card in stack)
    left.subtract(view.hand)
    left.subtract(_face_down(view, view.my_assignment))
    return sorted(left.elements())


def _base(view: View, p: PlayerView, hand: tuple[str, ...]) -> Player:
    return Player(
        hand=hand,
        slots=_stacks(p),
        explorers_left=p.explorers_left,
        explorers_gained=p.explorers_gained,
        explorers=frozenset(i for i, space in enumerate(view.spaces) if p.seat in space.explorers),
        resources=p.resources,
        score=p.score,
        tiles=p.tiles,
        large=p.large,
        assignment=None,
        choice=None,
    )


def _own(view: View, p: PlayerView) -> Player:
    player = _base(view, p, view.hand)
    choice: CollectIncome | AdvanceMarkers | None = view.my_income
    if view.phase is Phase.ANIMALS and view.my_extra_moves is not None:
        choice = AdvanceMarkers(view.my_extra_moves)
    return replace(player, assignment=view.my_assignment, choice=choice)


def _other(view: View, p: PlayerView, cards: list[str], rng: Rng) -> Player:
    """Another seat: a hand (and face-down cards) dealt from `cards`, and its secret choice if made."""
    assigned = view.phase is not Phase.ASSIGN or p.has_chosen
    hidden = FACE_DOWN[view.phase] if assigned else 0
    dealt = [cards.pop() for _ in range(p.hand_count + hidden)]
    if view.phase is Phase.ASSIGN:
        player = _base(view, p, tuple(dealt))
        if not assigned:
            return player
        options = steps.assignments(player)
        pick = options[rng.randrange(len(options))]
        hand = tuple(c for c in dealt if c not in (pick.a, pick.b, pick.d))
        return replace(player, hand=hand, assignment=Assignment(pick.a, pick.b, pick.d, pick.slot))
    down, hand = dealt[:hidden], tuple(dealt[hidden:])
    d = down[-1]
    b = down[0] if hidden == 2 else d
    player = replace(_base(view, p, hand), assignment=Assignment(b, b, d, 0))
    if not p.has_chosen:
        return player
    choices = steps.incomes(player) if view.phase is Phase.INCOME else steps.animal_moves(player)
    return replace(player, choice=choices[rng.randrange(len(choices))])


def _turn(view: View) -> int:
    if view.phase is Phase.ANIMALS:
        return len(view.players)
    if view.phase is Phase.EXPLORE and view.current_seat is not None:
        seats = len(view.players)
        return (view.current_seat - view.start_player) % seats
    return 0


def determinize(view: View, seat: int, rng: Rng) -> Determinization[State]:
    """A state `seat` cannot tell from the real one at a decision of its own, and the draw pile's order."""
    cards = _unseen(view)
    rng.shuffle(cards)
    players = tuple(
        _own(view, p) if p.seat == seat else _other(view, p, cards, rng) for p in view.players
    )
    seats = len(view.players)
    state = State(
        seats=seats,
        deck=view.deck,
        phase=view.phase,
        round=view.round,
        start=view.start_player,
        turn=_turn(view),
        layout=view.layout or None,
        region_tiles=tuple(r.tile for r in view.regions) if view.regions else None,
        markers=tuple(m.position for m in view.markers),
        players=players,
        pile=view.draw_pile,
        pile_size=view.draw_pile_size,
        pile_number=int(view.draw_pile.split(":")[1]) if view.draw_pile else 0,
        discard=view.discard,
        drawn=seats if view.phase not in (Phase.SETUP, Phase.DRAW) else 0,
        pending_resources=view.pending_resources,
        pending_markers=view.pending_markers,
    )
    piles = {view.draw_pile: cards} if view.draw_pile else {}
    return Determinization(state, piles)


__all__ = ["determinize"]
