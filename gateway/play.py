"""Play endpoints: a seat's legal actions and its submitted actions, forwarded to the match service."""

from __future__ import annotations

from tabletop.gateway.v1 import gateway_pb2 as pb
from tabletop.match.v1 import match_service_pb2 as mpb

from gateway import validate, views
from gateway.callers import CallContext, Callers, client_command, holder
from gateway.limits import RateLimiter
from gateway.positions import Positions
from gateway.subscriptions import Subscriptions
from services.common.errors import InvalidArgument
from services.common.rpc.ports import MatchPort
from services.common.security.tokens import SeatClaim


class Moves:
    """ListLegalActions and SubmitAction, for the seat the caller's token holds."""

    def __init__(
        self,
        match: MatchPort,
        callers: Callers,
        limiter: RateLimiter,
        positions: Positions | None = None,
        feeds: Subscriptions | None = None,
    ) -> None:
        self._match = match
        self._callers = callers
        self._limiter = limiter
        # The live updates, handed what each submit appended (no read of the log for it).
        self._feeds = feeds
        # Shared with the watchers (gateway/watching.py): a submit's reply brings its position.
        self.positions = positions or Positions(match)

    async def ListLegalActions(
        self, request: pb.ListLegalActionsRequest, context: CallContext
    ) -> pb.ListLegalActionsResponse:
        return await self.legal_actions(self._callers.seat(context, request.match_id))

    async def SubmitAction(self, request: pb.SubmitActionRequest, context: CallContext) -> pb.SubmitActionResponse:
        return await self.submit(self._callers.seat(context, request.match_id), request)

    async def UndoActions(self, request: pb.UndoActionsRequest, context: CallContext) -> pb.UndoActionsResponse:
        """Take back the claimed seat's last actions; counted against its action rate."""
        claim = self._callers.seat(context, request.match_id)
        if request.count < 0 or request.count > 1000:
            raise InvalidArgument("count must be from 1 to 1000 (0 means 1)", "count")
        self._limiter.take(f"{claim.match_id}/{claim.seat}", "actions from this seat")
        reply = await self._match.UndoActions(
            mpb.UndoActionsRequest(
                match_id=claim.match_id,
                seat=claim.seat,
                count=request.count or 1,
                command_id=client_command(request.command_id),
                holder=holder(claim),
            )
        )
        return pb.UndoActionsResponse(version=reply.version, duplicate=reply.duplicate, match=reply.match)

    async def legal_actions(self, claim: SeatClaim) -> pb.ListLegalActionsResponse:
        reply = await self._match.ListLegalActions(
            mpb.ListLegalActionsRequest(match_id=claim.match_id, seat=claim.seat, holder=holder(claim))
        )
        return pb.ListLegalActionsResponse(version=reply.version, actions=reply.actions)

    async def submit(self, claim: SeatClaim, request: pb.SubmitActionRequest) -> pb.SubmitActionResponse:
        """One action for the claimed seat, within the seat's action rate; the answer
        carries the seat's next view and legal actions (the match accepted the seat's
        holder, so they are the caller's to see)."""
        return answer_for(await self.forward(claim, request), claim.seat)

    async def forward(self, claim: SeatClaim, request: pb.SubmitActionRequest) -> mpb.SubmitActionResponse:
        """One action for the claimed seat, within the seat's action rate: the match
        service's reply, its position kept for the watchers and its events handed to
        the live updates before this returns."""
        self._limiter.take(f"{claim.match_id}/{claim.seat}", "actions from this seat")
        call = self._match.SubmitAction(
            mpb.SubmitActionRequest(
                match_id=request.match_id,
                seat=claim.seat,
                action=validate.action(request.action),
                command_id=client_command(request.command_id),
                holder=holder(claim),
                with_position=True,
            )
        )
        if self._feeds is None:
            return await self.positions.submitted(request.match_id, call)
        with self._feeds.submitting(request.match_id):
            reply = await self.positions.submitted(request.match_id, call)
            if reply.appended:
                await self._feeds.offer(request.match_id, reply.version, reply.appended)
        return reply


def answer_for(reply: mpb.SubmitActionResponse, seat: int) -> pb.SubmitActionResponse:
    """The submitting seat's answer: the new version, and with it the match, the seat's
    view and its legal actions when it is asked to act."""
    response = pb.SubmitActionResponse(version=reply.version, duplicate=reply.duplicate)
    if reply.HasField("match"):
        response.match.CopyFrom(reply.match)
        response.view.CopyFrom(views.view_for(reply.position, seat))
        if seat in reply.match.to_move:
            response.legal_actions.extend(views.legal_actions_for(reply.position, seat))
    return response
