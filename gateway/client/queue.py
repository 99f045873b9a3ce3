"""`tabletop queue`: ask the gateway for a match and wait for the assignment."""

from __future__ import annotations

import contextlib
import uuid
from typing import Any

import grpc
from tabletop.gateway.v1 import gateway_service_pb2 as pb
from tabletop.gateway.v1 import gateway_service_pb2_grpc as pb_grpc
from tabletop.matchmaker.v1 import matchmaker_service_pb2 as mmpb

from services.common.transport import CHANNEL_OPTIONS

RECONNECTS = 5


async def queue(
    gateway_addr: str, game: str, players_min: int, players_max: int, options: dict[str, str], player_id: str
) -> dict[str, Any]:
    """Queue `player_id` and wait; returns {"ticket_id", "match_id", "seat", "token"}.

    The ticket is withdrawn if the wait is interrupted (Ctrl-C) before an assignment.
    """
    async with grpc.aio.insecure_channel(gateway_addr, options=CHANNEL_OPTIONS) as channel:
        stub = pb_grpc.GatewayServiceStub(channel)
        ticket = await stub.FindMatch(
            pb.FindMatchRequest(
                game=game,
                player_id=player_id,
                players_min=players_min,
                players_max=players_max,
                options=options,
                command_id=uuid.uuid4().hex,
            ),
            wait_for_ready=True,
        )
        try:
            assignment = await _wait(stub, ticket.ticket_id)
        except BaseException:
            await _withdraw(stub, ticket.ticket_id)
            raise
        return {
            "ticket_id": ticket.ticket_id,
            "match_id": assignment.match_id,
            "seat": assignment.seat,
            "token": assignment.token,
        }


class TicketExpired(RuntimeError):
    """The matchmaker gave up on the ticket (its time-to-live passed)."""


async def _wait(stub: pb_grpc.GatewayServiceStub, ticket_id: str) -> mmpb.Assignment:
    for attempt in range(RECONNECTS):
        try:
            async for update in stub.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket_id), wait_for_ready=True):
                if update.status == mmpb.TICKET_STATUS_ASSIGNED:
                    return update.assignment
                if update.status == mmpb.TICKET_STATUS_EXPIRED:
                    raise TicketExpired(f"ticket {ticket_id} waited too long and expired; queue again")
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE or attempt == RECONNECTS - 1:
                raise
    raise RuntimeError(f"ticket {ticket_id}: the watch ended without an assignment")


async def _withdraw(stub: pb_grpc.GatewayServiceStub, ticket_id: str) -> None:
    # Already placed, or the gateway is gone: nothing more to do.
    with contextlib.suppress(grpc.aio.AioRpcError):
        await stub.CancelTicket(pb.CancelTicketRequest(ticket_id=ticket_id), timeout=5)
