"""gRPC adapter of the deck use cases.

A rules process may shuffle, deal and put only under the match's grant
(services/common/security/grants.py), and make a pile (shuffle or put) only under the grant's
first draw number, the match's next one: a pile made ahead, with an order of its
choosing, would stand where the match's own shuffle goes. The match needs none.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import grpc
from tabletop.deck.v1 import deck_service_pb2 as pb
from tabletop.deck.v1 import deck_service_pb2_grpc as pb_grpc
from tabletop.dice.v1 import dice_service_pb2 as dice_pb

from services.common.rpc import batch, mux
from services.common.rpc.ports import DicePort
from services.common.security import authz
from services.common.security.grants import GrantChecker, check_call
from services.deck.app import DeckApp

if TYPE_CHECKING:
    from services.common.security import tls


class DicePermuter:
    """The deck's view of the dice service, over either transport."""

    def __init__(self, dice_client: DicePort) -> None:
        self._dice = dice_client

    async def permute(self, match_id: str, counter: int, n: int) -> tuple[int, ...]:
        reply = await self._dice.Permute(dice_pb.PermuteRequest(match_id=match_id, counter=counter, n=n))
        return tuple(reply.order)


class DeckServicer(pb_grpc.DeckServiceServicer):
    def __init__(self, app: DeckApp, grants: GrantChecker) -> None:
        self._app = app
        self._grants = grants

    async def ShufflePile(self, request: pb.ShufflePileRequest, context: tls.Authenticated) -> pb.ShufflePileResponse:
        check_call(self._grants, context, request.grant, request.match_id, request.counter, pile=True)
        size = await self._app.shuffle(
            request.match_id, request.pile, request.counter, tuple(request.cards), request.keep_order
        )
        return pb.ShufflePileResponse(size=size)

    async def DrawCards(self, request: pb.DrawCardsRequest, context: tls.Authenticated) -> pb.DrawCardsResponse:
        # A deal reads an earlier shuffle: it uses no new draw number, only the match is checked.
        check_call(self._grants, context, request.grant, request.match_id)
        cards = await self._app.draw(request.match_id, request.pile, request.counter, request.offset, request.count)
        return pb.DrawCardsResponse(cards=cards)

    async def PutCards(self, request: pb.PutCardsRequest, context: tls.Authenticated) -> pb.PutCardsResponse:
        check_call(self._grants, context, request.grant, request.match_id, request.counter, pile=True)
        size = await self._app.put(
            request.match_id, request.pile, request.counter, request.from_counter, request.offset,
            tuple(request.cards), request.bottom,
        )
        return pb.PutCardsResponse(size=size)

    async def ReleaseMatch(self, request: pb.ReleaseMatchRequest, context: object) -> pb.ReleaseMatchResponse:
        await self._app.release(request.match_id)
        return pb.ReleaseMatchResponse()

    async def Batch(self, request: pb.BatchRequest, context: object) -> pb.BatchResponse:
        return pb.BatchResponse(results=await batch.answer(self, authz.DECK, request.calls, context))

    async def Exchange(
        self,
        requests: AsyncIterator[pb.ExchangeRequest],
        context: grpc.aio.ServicerContext[pb.ExchangeRequest, pb.ExchangeResponse],
    ) -> AsyncIterator[pb.ExchangeResponse]:
        async for message in mux.answer(self, authz.DECK, requests, context, pb.ExchangeResponse):
            yield message


def register(server: grpc.aio.Server, app: DeckApp, grants: GrantChecker) -> list[str]:
    pb_grpc.add_DeckServiceServicer_to_server(DeckServicer(app, grants), server)
    return [pb.DESCRIPTOR.services_by_name["DeckService"].full_name]
