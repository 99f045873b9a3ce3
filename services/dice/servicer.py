"""gRPC adapter of the dice use cases.

A rules process may permute only under the match's grant for the draw number it asks
(services/common/security/grants.py); the match and the deck need none. Rolls are the match's
alone (the policy table, services/common/security/authz.py): it rolls from windows of them
(OpenWindow), and a rules process rolls from the slice of a window the match hands it.
A window is never logged: only the ids of its request are.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import grpc
from tabletop.common.v1 import chance_pb2
from tabletop.dice.v1 import dice_service_pb2 as pb
from tabletop.dice.v1 import dice_service_pb2_grpc as pb_grpc

from services.common.rpc import batch, mux
from services.common.security import authz
from services.common.security.grants import GrantChecker, check_call
from services.dice.app import DiceApp

if TYPE_CHECKING:
    from services.common.security import tls


class DiceServicer(pb_grpc.DiceServiceServicer):
    def __init__(self, app: DiceApp, grants: GrantChecker) -> None:
        self._app = app
        self._grants = grants

    async def CommitSeed(self, request: pb.CommitSeedRequest, context: object) -> pb.CommitSeedResponse:
        return pb.CommitSeedResponse(commitment=await self._app.commit(request.match_id))

    async def RollDice(self, request: pb.RollDiceRequest, context: tls.Authenticated) -> pb.RollDiceResponse:
        check_call(self._grants, context, request.grant, request.match_id, request.counter)
        values = await self._app.roll(request.match_id, request.counter, request.faces, request.count)
        return pb.RollDiceResponse(values=values)

    async def OpenWindow(self, request: pb.OpenWindowRequest, context: object) -> pb.OpenWindowResponse:
        held = await self._app.window(request.match_id, request.first_counter, request.counters, request.dice)
        return pb.OpenWindowResponse(
            window=chance_pb2.RollWindow(first_counter=held.first, dice=held.dice, digests=held.digests)
        )

    async def Permute(self, request: pb.PermuteRequest, context: tls.Authenticated) -> pb.PermuteResponse:
        check_call(self._grants, context, request.grant, request.match_id, request.counter)
        return pb.PermuteResponse(order=await self._app.permute(request.match_id, request.counter, request.n))

    async def RevealSeed(self, request: pb.RevealSeedRequest, context: object) -> pb.RevealSeedResponse:
        seed, commitment = await self._app.reveal(request.match_id)
        return pb.RevealSeedResponse(seed=seed, commitment=commitment)

    async def Batch(self, request: pb.BatchRequest, context: object) -> pb.BatchResponse:
        return pb.BatchResponse(results=await batch.answer(self, authz.DICE, request.calls, context))

    async def Exchange(
        self,
        requests: AsyncIterator[pb.ExchangeRequest],
        context: grpc.aio.ServicerContext[pb.ExchangeRequest, pb.ExchangeResponse],
    ) -> AsyncIterator[pb.ExchangeResponse]:
        async for message in mux.answer(self, authz.DICE, requests, context, pb.ExchangeResponse):
            yield message


def register(server: grpc.aio.Server, app: DiceApp, grants: GrantChecker) -> list[str]:
    pb_grpc.add_DiceServiceServicer_to_server(DiceServicer(app, grants), server)
    return [pb.DESCRIPTOR.services_by_name["DiceService"].full_name]
