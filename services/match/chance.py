"""Resolving a chance request through the dice and deck services.

The draw number (counter) comes from the match record, which is derived from
the log; the dice and deck answer pure functions of it, so a retried or raced
resolution gets the same outcome and consumes nothing.
"""

from __future__ import annotations

from tabletop.common.v1 import chance_pb2
from tabletop.deck.v1 import deck_service_pb2 as deck_pb
from tabletop.dice.v1 import dice_service_pb2 as dice_pb
from tabletop.match.v1 import events_pb2 as ev

from services.common.errors import FailedPrecondition
from services.common.ports import DeckPort, DicePort
from services.match.lifecycle import Match


class ChanceResolver:
    def __init__(self, dice: DicePort, deck: DeckPort) -> None:
        self._dice = dice
        self._deck = deck

    async def resolve(
        self, match: Match, request: chance_pb2.ChanceRequest
    ) -> tuple[chance_pb2.ChanceOutcome, ev.ChanceResolved]:
        """The outcome of `request`, and the record of it for the log."""
        match_id, counter = match.match_id, match.next_counter
        kind = request.WhichOneof("kind")
        outcome = chance_pb2.ChanceOutcome()
        resolved = ev.ChanceResolved(counter=counter, request=request)
        if kind == "roll_dice":
            r = request.roll_dice
            rolled = await self._dice.RollDice(
                dice_pb.RollDiceRequest(match_id=match_id, counter=counter, faces=r.faces, count=r.count)
            )
            outcome.dice_rolled.values.extend(rolled.values)
        elif kind == "permute":
            permuted = await self._dice.Permute(
                dice_pb.PermuteRequest(match_id=match_id, counter=counter, n=request.permute.n)
            )
            outcome.permuted.order.extend(permuted.order)
        elif kind == "shuffle_pile":
            s = request.shuffle_pile
            shuffled = await self._deck.ShufflePile(
                deck_pb.ShufflePileRequest(
                    match_id=match_id, pile=s.pile, counter=counter, cards=s.cards, keep_order=s.keep_order
                )
            )
            outcome.pile_shuffled.pile, outcome.pile_shuffled.size = s.pile, shuffled.size
        elif kind == "draw_cards":
            await self._draw(match, request.draw_cards, outcome, resolved)
        elif kind == "put_cards":
            await self._put(match, request.put_cards, outcome, resolved)
        else:
            raise FailedPrecondition("the engine asked for an unknown chance request", "match.chance_unknown")
        resolved.outcome.CopyFrom(outcome)
        return outcome, resolved

    async def _draw(
        self,
        match: Match,
        draw: chance_pb2.DrawCards,
        outcome: chance_pb2.ChanceOutcome,
        resolved: ev.ChanceResolved,
    ) -> None:
        mark = match.pile(draw.pile)
        if mark is None:
            raise FailedPrecondition(f"pile {draw.pile} was never shuffled", "match.pile_unknown")
        reply = await self._deck.DrawCards(
            deck_pb.DrawCardsRequest(
                match_id=match.match_id, pile=draw.pile, counter=mark.counter, offset=mark.dealt, count=draw.count
            )
        )
        outcome.cards_drawn.pile = draw.pile
        outcome.cards_drawn.cards.extend(reply.cards)
        # A deal uses no new draw number: it reads the pile the shuffle made.
        resolved.counter = -1
        resolved.pile_counter, resolved.pile_offset = mark.counter, mark.dealt

    async def _put(
        self,
        match: Match,
        put: chance_pb2.PutCards,
        outcome: chance_pb2.ChanceOutcome,
        resolved: ev.ChanceResolved,
    ) -> None:
        mark = match.pile(put.pile)
        from_counter, offset = (mark.counter, mark.dealt) if mark is not None else (-1, 0)
        reply = await self._deck.PutCards(
            deck_pb.PutCardsRequest(
                match_id=match.match_id, pile=put.pile, counter=match.next_counter,
                from_counter=from_counter, offset=offset, cards=put.cards, bottom=put.bottom,
            )
        )
        outcome.cards_put.pile, outcome.cards_put.size = put.pile, reply.size
        resolved.pile_counter, resolved.pile_offset = from_counter, offset
