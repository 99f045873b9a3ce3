"""Reads and streams: views, the match log, live updates, and the two-way Play stream.

Logs are read from Redis directly (read-only) and every event is filtered by
what the caller may see (gateway/views.py); a seat's read or stream fails as
soon as its token no longer holds the seat.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import TypeVar

from tabletop.gateway.v1 import gateway_pb2 as pb
from tabletop.gateway.v1 import watch_service_pb2_grpc
from tabletop.match.v1 import match_service_pb2 as mpb

from gateway import validate, views
from gateway.callers import CallContext, Callers, holder, still_holding
from gateway.play import Moves, answer_for
from gateway.positions import fetched_once
from gateway.subscriptions import Subscriptions
from services.common import tracing
from services.common.errors import PermissionDenied, ServiceError, Unauthenticated
from services.common.lru import LRU
from services.common.redis.keys import match_stream
from services.common.rpc.ports import MatchPort
from services.common.security.tokens import SeatClaim
from services.common.store.event_store import EventStore

WATCH_POLL_SECONDS = 10.0
MAX_LOG_PAGE = 5000
SUMMARY_CACHE = 4096
# Messages a Play stream holds for its client beyond what gRPC's own flow control
# buffers: past them its watch waits for the client to read, as a WatchMatch does.
PLAY_BACKLOG = 16
Update = pb.WatchMatchResponse
M = TypeVar("M", pb.WatchMatchResponse, pb.PlayResponse)


class Watching(watch_service_pb2_grpc.WatchServiceServicer):
    """The watch service (GetView, GetMatchLog, WatchMatch), and the Play stream the play
    service serves (gateway/servicer.py): its updates are a watch's."""

    def __init__(
        self, match: MatchPort, store: EventStore, feeds: Subscriptions, callers: Callers, moves: Moves
    ) -> None:
        self._match = match
        self._store = store
        self._feeds = feeds
        self._callers = callers
        self._moves = moves
        # (match_id, version) -> the summary at that version, shared by every watcher.
        self._summaries: LRU[tuple[str, int], asyncio.Future[mpb.GetMatchResponse]] = LRU(SUMMARY_CACHE, fifo=True)

    async def GetView(self, request: pb.GetViewRequest, context: CallContext) -> pb.GetViewResponse:
        viewer = self._callers.viewer(context, request.match_id)
        at = validate.version(request.at_version, "at_version") if request.HasField("at_version") else None
        if request.HasField("as_seat") and (viewer is None or viewer.seat != request.as_seat):
            # Another seat's view, asked without that seat's token.
            reply = await self._seat_view(request.match_id, validate.seat(request.as_seat), at)
            response = pb.GetViewResponse(match=reply.match, view=reply.view)
            response.seat = request.as_seat
            return response
        reply = await self._view(request.match_id, viewer, at)
        response = pb.GetViewResponse(match=reply.match, view=reply.view)
        if viewer is not None:
            response.seat = viewer.seat
        return response

    async def _seat_view(self, match_id: str, seat: int, at_version: int | None) -> mpb.GetViewResponse:
        """A seat's view for a caller who does not hold it: only once the match has ended (a
        finished match never plays again, so this check cannot go stale)."""
        current = (await self._match.GetMatch(mpb.GetMatchRequest(match_id=match_id))).match
        if current.status != mpb.MATCH_STATUS_FINISHED:
            raise PermissionDenied("another seat's view is shown only once the match has ended",
                                   "view.seat_during_play")
        request = mpb.GetViewRequest(match_id=match_id, viewer=seat)
        if at_version is not None:
            request.at_version = at_version
        return await self._match.GetView(request)

    async def _view(
        self, match_id: str, viewer: SeatClaim | None, at_version: int | None = None
    ) -> mpb.GetViewResponse:
        request = mpb.GetViewRequest(match_id=match_id)
        if viewer is not None:
            request.viewer = viewer.seat
            request.holder.CopyFrom(holder(viewer))
        if at_version is not None:
            request.at_version = at_version
        return await self._match.GetView(request)

    async def GetMatchLog(self, request: pb.GetMatchLogRequest, context: CallContext) -> pb.GetMatchLogResponse:
        claim = self._callers.viewer(context, request.match_id)
        validate.version(request.after_version)
        validate.limit(request.limit)
        summary = (await self._match.GetMatch(mpb.GetMatchRequest(match_id=request.match_id))).match
        viewer = still_holding(summary, claim)
        finished = summary.status == mpb.MATCH_STATUS_FINISHED
        limit = min(request.limit or MAX_LOG_PAGE, MAX_LOG_PAGE)
        events = await self._store.read(match_stream(request.match_id), request.after_version, limit)
        return pb.GetMatchLogResponse(entries=views.entries_for(events, viewer, finished), status=summary.status)

    async def WatchMatch(
        self, request: pb.WatchMatchRequest, context: CallContext
    ) -> AsyncGenerator[pb.WatchMatchResponse, None]:
        claim = self._callers.viewer(context, request.match_id)
        async for update in self._updates(request, claim, _alone):
            yield update

    async def _updates(
        self, request: pb.WatchMatchRequest, claim: SeatClaim | None, envelope: Callable[[], tuple[M, Update]]
    ) -> AsyncGenerator[M, None]:
        """Updates from `after_version` on, one per batch of new events, until the match ends.
        A seat's stream ends (PERMISSION_DENIED) as soon as its token no longer holds the seat.
        Each update is written into the message `envelope` makes, the one that is sent
        (a Play stream's PlayResponse), rather than copied into it."""
        validate.match_id(request.match_id)
        validate.version(request.after_version)
        summary = (await self._match.GetMatch(mpb.GetMatchRequest(match_id=request.match_id))).match
        viewer = still_holding(summary, claim)
        after = request.after_version
        while True:
            if summary.status == mpb.MATCH_STATUS_FINISHED and after >= summary.version:
                return
            events = await self._feeds.next_batch(request.match_id, after, WATCH_POLL_SECONDS)
            if not events:
                continue
            after = events[-1].version
            wants_position = request.with_view or (request.with_legal_actions and claim is not None)
            known = await self._moves.positions.at(request.match_id, after) if wants_position else None
            summary = known.match if known is not None else await self._summary_at(request.match_id, after)
            # Checked before any part of the position is shown: a seat's view is its holder's only.
            seat = still_holding(summary, claim)
            finished = summary.status == mpb.MATCH_STATUS_FINISHED
            sent, update = envelope()
            update.version = after
            update.entries.extend(views.entries_for(events, viewer, finished, live=True))
            update.match.CopyFrom(summary)
            if known is not None and request.with_view:
                if seat is None:
                    update.view.CopyFrom(await self._moves.positions.spectator_view(known))
                else:
                    update.view.CopyFrom(views.view_for(known.position, seat))
            if known is not None and seat is not None and request.with_legal_actions and seat in summary.to_move:
                update.legal_actions.extend(views.legal_actions_for(known.position, seat))
            yield sent

    async def _summary_at(self, match_id: str, version: int) -> mpb.MatchSummary:
        """The match summary once it has reached `version`, fetched once for all watchers."""
        key, request = (match_id, version), mpb.GetMatchRequest(match_id=match_id)
        summary = (await fetched_once(self._summaries, key, lambda: self._match.GetMatch(request))).match
        if summary.version < version:  # fetched from a replica that had not caught up yet
            self._summaries.pop(key, None)
            summary = (await self._match.GetMatch(request)).match
        return summary

    async def Play(
        self, request_iterator: AsyncIterator[pb.PlayRequest], context: CallContext
    ) -> AsyncGenerator[pb.PlayResponse, None]:
        claim = self._callers.any_seat(context)
        # Updates and answers for the client; a refusal of the stream itself
        # (a malformed message, a watch that is not allowed) ends it with its status.
        # Bounded: a client that stops reading holds back its own watch (and, once that
        # fills it, its submits' answers), never the gateway's memory.
        out: asyncio.Queue[pb.PlayResponse | ServiceError | None] = asyncio.Queue(PLAY_BACKLOG)
        watcher: asyncio.Task[None] | None = None
        # Set once the watch carries the legal actions (a seat that plays from its updates):
        # it then answers this stream's submits to its match, one message per action.
        answers: Answers | None = None
        watched = ""

        async def watch(request: pb.WatchMatchRequest) -> None:
            try:
                viewer = self._callers.viewer(context, request.match_id)
                async for response in self._updates(request, viewer, _in_play):
                    if answers is not None:
                        response.update.answered_command_ids.extend(answers.carried_by(response.update.version))
                    await out.put(response)
            except ServiceError as error:
                await out.put(error)

        async def read() -> None:
            nonlocal watcher, answers, watched
            try:
                async for message in request_iterator:
                    kind = message.WhichOneof("kind")
                    if kind == "watch" and watcher is None:
                        watched = message.watch.match_id
                        if message.watch.with_legal_actions:
                            answers = Answers(message.watch.after_version)
                        watcher = asyncio.create_task(watch(message.watch))
                    elif kind == "submit":
                        answered = answers if message.submit.match_id == watched else None
                        response = await self._play_submit(claim, message.submit, answered)
                        if response is not None:
                            await out.put(response)
            except ServiceError as error:
                await out.put(error)
                return
            await out.put(None)

        reader = asyncio.create_task(read())
        try:
            while (item := await out.get()) is not None:
                if isinstance(item, ServiceError):
                    raise item
                yield item
        finally:
            for task in (reader, watcher):
                if task is not None:
                    task.cancel()

    @tracing.traced("/tabletop.gateway.v1.PlayService/Play.submit")  # a trace per submit, not per stream
    async def _play_submit(
        self, claim: SeatClaim | None, request: pb.SubmitActionRequest, answers: Answers | None
    ) -> pb.PlayResponse | None:
        """One submit on the Play stream; a refusal becomes a PlayError and the stream goes on.
        None when the stream's watch will answer it with the update that carries its events."""
        try:
            if claim is None:
                raise Unauthenticated("submitting needs a seat token", "auth.missing")
            if claim.match_id != request.match_id:
                raise PermissionDenied("the token is for another match", "auth.other_match")
            reply = await self._moves.forward(claim, request)
        except ServiceError as error:
            return pb.PlayResponse(
                error=pb.PlayError(
                    command_id=request.command_id, code=error.code.name, message=error.message, rule=error.reason
                )
            )
        # No await from the reply to here: the watch cannot have sent this version meanwhile
        # unless it already had (Answers.wait_for tells), so an answer is never lost.
        if answers is not None and _answered_by_watch(answers, request, reply):
            return None
        response = pb.PlayResponse()
        response.accepted.CopyFrom(answer_for(reply, claim.seat))
        return response


class Answers:
    """A Play stream's submits that its own watch answers. The watch sends an update for
    every batch of new events, in order, so a submit whose version it has not yet sent is
    answered by the first update at or past that version."""

    def __init__(self, after_version: int) -> None:
        self.sent = after_version  # the newest version the watch has sent (or skipped)
        self._waiting: list[tuple[int, str]] = []  # (version, command id)

    def wait_for(self, version: int, command_id: str) -> bool:
        """Whether the watch will answer the submit that reached `version`: False once it
        has sent that version already (the submit is then answered on its own)."""
        if version <= self.sent:
            return False
        self._waiting.append((version, command_id))
        return True

    def carried_by(self, version: int) -> list[str]:
        """The command ids an update at `version` answers; it is now sent."""
        self.sent = max(self.sent, version)
        if not self._waiting or self._waiting[0][0] > version:
            return []
        done = [command for reached, command in self._waiting if reached <= version]
        self._waiting = [(reached, command) for reached, command in self._waiting if reached > version]
        return done


def _answered_by_watch(answers: Answers, request: pb.SubmitActionRequest, reply: mpb.SubmitActionResponse) -> bool:
    """Whether the watch answers this submit: one that appended, named by a command id
    (a duplicate brings no new version, and without an id the client could not tell)."""
    fresh = bool(request.command_id) and not reply.duplicate and reply.HasField("match")
    return fresh and answers.wait_for(reply.version, request.command_id)


def _alone() -> tuple[pb.WatchMatchResponse, pb.WatchMatchResponse]:
    update = pb.WatchMatchResponse()
    return update, update


def _in_play() -> tuple[pb.PlayResponse, pb.WatchMatchResponse]:
    response = pb.PlayResponse()
    return response, response.update
