"""Play endpoints: a seat's legal actions and its submitted actions, forwarded to the match service."""

from __future__ import annotations

from tabletop.gateway.v1 import gateway_service_pb2 as pb
from tabletop.match.v1 import match_service_pb2 as mpb

from gateway import validate
from gateway.callers import CallContext, Callers, client_command, holder
from gateway.limits import RateLimiter
from services.common.ports import MatchPort
from services.common.tokens import SeatClaim


class Moves:
    """ListLegalActions and SubmitAction, for the seat the caller's token holds."""

    def __init__(self, match: MatchPort, callers: Callers, limiter: RateLimiter) -> None:
        self._match = match
        self._callers = callers
        self._limiter = limiter

    async def ListLegalActions(
        self, request: pb.ListLegalActionsRequest, context: CallContext
    ) -> pb.ListLegalActionsResponse:
        return await self.legal_actions(self._callers.seat(context, request.match_id))

    async def SubmitAction(self, request: pb.SubmitActionRequest, context: CallContext) -> pb.SubmitActionResponse:
        return await self.submit(self._callers.seat(context, request.match_id), request)

    async def legal_actions(self, claim: SeatClaim) -> pb.ListLegalActionsResponse:
        reply = await self._match.ListLegalActions(
            mpb.ListLegalActionsRequest(match_id=claim.match_id, seat=claim.seat, holder=holder(claim))
        )
        return pb.ListLegalActionsResponse(version=reply.version, actions=reply.actions)

    async def submit(self, claim: SeatClaim, request: pb.SubmitActionRequest) -> pb.SubmitActionResponse:
        """One action for the claimed seat, within the seat's action rate."""
        self._limiter.take(f"{claim.match_id}/{claim.seat}", "actions from this seat")
        reply = await self._match.SubmitAction(
            mpb.SubmitActionRequest(
                match_id=request.match_id,
                seat=claim.seat,
                action=validate.action(request.action),
                command_id=client_command(request.command_id),
                holder=holder(claim),
            )
        )
        return pb.SubmitActionResponse(version=reply.version, duplicate=reply.duplicate)
