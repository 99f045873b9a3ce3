"""Where a match's draws stand, and resolving one chance request through the dice and deck.

The draw number (counter) comes from the match record, which is derived from the
log; the dice and deck answer pure functions of it, so a retried or raced
resolution gets the same outcome and consumes nothing. Two callers resolve: the
match (services/match/turns.py) and the rules deciding a move, in a process of
their own under the match's grant (services/rules/servicer.py,
services/common/grants.py) or in the match's process as the match. Both
advance the same cursor with `advanced`, so they cannot disagree on which draw
number or pile position comes next.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from tabletop.common.v1 import chance_pb2
from tabletop.deck.v1 import deck_service_pb2 as deck_pb
from tabletop.dice.v1 import dice_service_pb2 as dice_pb

from services.common.errors import FailedPrecondition
from services.common.ports import DeckPort, DicePort


@dataclass(frozen=True)
class Pile:
    """How far one hidden pile has been dealt; `counter` is the draw number of the
    shuffle (or put) that made its current order."""

    name: str
    counter: int
    size: int
    dealt: int = 0


@dataclass(frozen=True)
class Resolution:
    """What the log keeps of a resolution beside its request and outcome."""

    counter: int  # the draw number it used; -1 for a deal, which reads an earlier shuffle
    pile_counter: int = 0  # a deal's or a put's pile version ...
    pile_offset: int = 0  # ... and how many of its cards had been dealt


def placed(request: chance_pb2.ChanceRequest, counter: int, pile: Callable[[str], Pile | None]) -> Resolution:
    """Where resolving `request` reads and writes, for a match whose next draw number is
    `counter` (`pile`: its piles by name): what the resolver uses, and what the match
    checks a step the rules resolved against."""
    kind = request.WhichOneof("kind")
    if kind == "draw_cards":
        # A deal uses no new draw number: it reads the pile the shuffle (or put) made.
        mark = pile(request.draw_cards.pile)
        if mark is None:
            raise FailedPrecondition(f"pile {request.draw_cards.pile} was never shuffled", "match.pile_unknown")
        return Resolution(-1, mark.counter, mark.dealt)
    if kind == "put_cards":
        # A new version of the pile, onto what is left of the current one (if any).
        mark = pile(request.put_cards.pile)
        return Resolution(counter, *((mark.counter, mark.dealt) if mark is not None else (-1, 0)))
    return Resolution(counter)


class Resolved(Protocol):
    """A logged resolution: the match's ChanceResolved event, or a rules ChanceStep."""

    @property
    def counter(self) -> int: ...

    @property
    def request(self) -> chance_pb2.ChanceRequest: ...

    @property
    def outcome(self) -> chance_pb2.ChanceOutcome: ...


def advanced(counter: int, piles: tuple[Pile, ...], events: Iterable[Resolved]) -> tuple[int, tuple[Pile, ...]]:
    """The next draw number and the piles after a run of resolutions, piles in the order
    they were first made (a rebuild folds hundreds of these: one pass, deals added at the end)."""
    by_name = {pile.name: pile for pile in piles}
    dealt: dict[str, int] = {}  # cards drawn from each pile beyond what `by_name` says
    for event in events:
        request = event.request
        kind = request.WhichOneof("kind")
        if event.counter >= 0:
            counter = event.counter + 1
        if kind == "draw_cards":
            name = request.draw_cards.pile
            if name not in by_name:
                by_name[name] = Pile(name, 0, 0)
            dealt[name] = dealt.get(name, 0) + request.draw_cards.count
        elif kind == "shuffle_pile":
            shuffle = request.shuffle_pile
            by_name[shuffle.pile] = Pile(shuffle.pile, event.counter, len(shuffle.cards))
            dealt.pop(shuffle.pile, None)
        elif kind == "put_cards":
            # The put made a new version of the pile under this draw number.
            put = request.put_cards
            by_name[put.pile] = Pile(put.pile, event.counter, event.outcome.cards_put.size)
            dealt.pop(put.pile, None)
    for name, count in dealt.items():
        mark = by_name[name]
        by_name[name] = Pile(name, mark.counter, mark.size, mark.dealt + count)
    return counter, tuple(by_name.values())


class ChanceResolver:
    def __init__(self, dice: DicePort, deck: DeckPort) -> None:
        self._dice = dice
        self._deck = deck

    async def resolve(
        self,
        match_id: str,
        counter: int,
        pile: Callable[[str], Pile | None],
        request: chance_pb2.ChanceRequest,
        grant: chance_pb2.ChanceGrant | None = None,
    ) -> tuple[chance_pb2.ChanceOutcome, Resolution]:
        """The outcome of `request` for a match whose next draw number is `counter`
        (`pile`: its piles by name), and what the log keeps of it. A rules process
        passes the match's `grant`; the match needs none."""
        kind = request.WhichOneof("kind")
        outcome = chance_pb2.ChanceOutcome()
        how = placed(request, counter, pile)
        if kind == "roll_dice":
            r = request.roll_dice
            rolled = await self._dice.RollDice(
                dice_pb.RollDiceRequest(match_id=match_id, counter=counter, faces=r.faces, count=r.count, grant=grant)
            )
            outcome.dice_rolled.values.extend(rolled.values)
        elif kind == "permute":
            permuted = await self._dice.Permute(
                dice_pb.PermuteRequest(match_id=match_id, counter=counter, n=request.permute.n, grant=grant)
            )
            outcome.permuted.order.extend(permuted.order)
        elif kind == "shuffle_pile":
            s = request.shuffle_pile
            shuffled = await self._deck.ShufflePile(
                deck_pb.ShufflePileRequest(
                    match_id=match_id, pile=s.pile, counter=counter, cards=s.cards, keep_order=s.keep_order,
                    grant=grant,
                )
            )
            outcome.pile_shuffled.pile, outcome.pile_shuffled.size = s.pile, shuffled.size
        elif kind == "draw_cards":
            d = request.draw_cards
            drawn = await self._deck.DrawCards(
                deck_pb.DrawCardsRequest(
                    match_id=match_id, pile=d.pile, counter=how.pile_counter, offset=how.pile_offset, count=d.count,
                    grant=grant,
                )
            )
            outcome.cards_drawn.pile = d.pile
            outcome.cards_drawn.cards.extend(drawn.cards)
        elif kind == "put_cards":
            p = request.put_cards
            put = await self._deck.PutCards(
                deck_pb.PutCardsRequest(
                    match_id=match_id, pile=p.pile, counter=counter, from_counter=how.pile_counter,
                    offset=how.pile_offset, cards=p.cards, bottom=p.bottom, grant=grant,
                )
            )
            outcome.cards_put.pile, outcome.cards_put.size = p.pile, put.size
        else:
            raise FailedPrecondition("the engine asked for an unknown chance request", "match.chance_unknown")
        return outcome, how
