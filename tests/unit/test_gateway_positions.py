"""The gateway's shared positions: a submit's reply carries the seat's next view
and legal actions; every watcher of a version is served from ONE GetPosition
fetch; and a watcher is shown its own seat's part only, never the mover's."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from google.protobuf import any_pb2
from tabletop.gateway.v1 import gateway_pb2 as pb
from tabletop.match.v1 import match_service_pb2 as mpb
from tabletop.rules.v1 import rules_service_pb2 as rpb

from gateway.callers import Callers
from gateway.limits import RateLimiter
from gateway.play import Moves
from gateway.positions import Positions
from gateway.subscriptions import Subscriptions
from gateway.watching import Watching
from services.common.errors import PermissionDenied, Unavailable
from services.common.redis.changes import SUBSCRIBED
from services.common.redis.keys import match_stream
from services.common.security import keyring
from services.common.security.tokens import TokenAuthority
from services.common.store.event_store import MemoryEventStore, NewEvent

MATCH = "m1"
MOVE = any_pb2.Any(type_url="type.googleapis.com/test.Move", value=b"go")


def _view(text: str) -> any_pb2.Any:
    return any_pb2.Any(type_url="type.googleapis.com/test.View", value=text.encode())


class Channel:
    def __init__(self) -> None:
        self.notes: asyncio.Queue[tuple[str, int]] = asyncio.Queue()

    async def listen(self) -> AsyncIterator[tuple[str, int]]:
        yield SUBSCRIBED
        while True:
            yield await self.notes.get()


class Board:
    """A match service for two seats: each version's position names its version and
    each seat's secret; seat (version % 2) moves. It counts the calls it answers."""

    def __init__(self, store: MemoryEventStore, channel: Channel) -> None:
        self.store = store
        self.channel = channel
        self.calls: dict[str, int] = {}

    def _count(self, name: str) -> None:
        self.calls[name] = self.calls.get(name, 0) + 1

    async def _summary(self) -> mpb.MatchSummary:
        version = await self.store.version(match_stream(MATCH))
        return mpb.MatchSummary(
            match_id=MATCH, version=version, status=mpb.MATCH_STATUS_ACTIVE, to_move=[version % 2],
            seats=[mpb.Seat(seat=s, player_id=f"p{s}", tenure=1) for s in (0, 1)],
        )

    @staticmethod
    def position(summary: mpb.MatchSummary, spectator: bool = True) -> rpb.Position:
        v = summary.version
        position = rpb.Position(
            seats=[
                rpb.SeatPosition(seat=s, view=_view(f"v{v} secret of seat {s}"),
                                 legal_actions=[MOVE] if s in summary.to_move else [])
                for s in (0, 1)
            ],
        )
        if spectator:  # a decision's position leaves the spectator out (GetPosition's has it)
            position.spectator_view.CopyFrom(_view(f"v{v} public"))
        return position

    async def GetView(self, request: mpb.GetViewRequest) -> mpb.GetViewResponse:
        self._count("GetView")
        assert not request.HasField("viewer") and request.HasField("at_version"), "a spectator's, at a version"
        await asyncio.sleep(0.01)
        summary = await self._summary()
        return mpb.GetViewResponse(match=summary, view=_view(f"v{request.at_version} public"))

    async def GetMatch(self, request: mpb.GetMatchRequest) -> mpb.GetMatchResponse:
        self._count("GetMatch")
        return mpb.GetMatchResponse(match=await self._summary())

    async def GetPosition(self, request: mpb.GetPositionRequest) -> mpb.GetPositionResponse:
        self._count("GetPosition")
        await asyncio.sleep(0.01)  # long enough for every watcher to ask at once
        summary = await self._summary()
        return mpb.GetPositionResponse(match=summary, position=self.position(summary))

    async def SubmitAction(self, request: mpb.SubmitActionRequest) -> mpb.SubmitActionResponse:
        self._count("SubmitAction")
        assert request.with_position, "the gateway asks for the position with its submit"
        stream = match_stream(MATCH)
        await self.store.append(stream, await self.store.version(stream), [NewEvent("test.Moved", b"")])
        summary = await self._summary()
        # Watchers hear of the append before this reply reaches the gateway.
        self.channel.notes.put_nowait((stream, summary.version))
        await asyncio.sleep(0.05)
        position = self.position(summary, spectator=False)
        return mpb.SubmitActionResponse(version=summary.version, match=summary, position=position)

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the gateway asked the match for {name}")


class Context:
    def __init__(self, token: str | None) -> None:
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata


class Gateway:
    def __init__(self) -> None:
        self.store = MemoryEventStore()
        self.channel = Channel()
        self.board = Board(self.store, self.channel)
        self.tokens = TokenAuthority(keyring.generate())
        self.feeds = Subscriptions(self.store, self.channel.listen)
        callers = Callers(self.tokens)
        self.moves = Moves(self.board, callers, RateLimiter(0, 0))  # type: ignore[arg-type]
        self.watching = Watching(self.board, self.store, self.feeds, callers, self.moves)  # type: ignore[arg-type]

    def seat(self, seat: int) -> Context:
        return Context(self.tokens.issue_seat(MATCH, seat, f"p{seat}", 1)[0])

    async def append(self) -> int:
        stream = match_stream(MATCH)
        version = await self.store.version(stream)
        await self.store.append(stream, version, [NewEvent("test.Moved", b"")])
        self.channel.notes.put_nowait((stream, version + 1))
        return version + 1


@pytest.fixture
async def gateway() -> AsyncIterator[Gateway]:
    running = Gateway()
    await running.append()
    yield running
    await running.feeds.close()


async def _first_update(gateway: Gateway, context: Context, after: int) -> pb.WatchMatchResponse:
    request = pb.WatchMatchRequest(match_id=MATCH, after_version=after, with_view=True, with_legal_actions=True)
    async for update in gateway.watching.WatchMatch(request, context):
        return update
    raise AssertionError("the watch ended without an update")


async def test_every_watcher_of_a_version_is_served_from_one_fetch(gateway: Gateway) -> None:
    contexts = [gateway.seat(0), gateway.seat(1), *(Context(None) for _ in range(8))] * 3
    watchers = [asyncio.ensure_future(_first_update(gateway, c, 1)) for c in contexts]
    await asyncio.sleep(0.05)  # every watcher is waiting for version 2
    assert await gateway.append() == 2
    updates = await asyncio.wait_for(asyncio.gather(*watchers), 5)
    assert gateway.board.calls.get("GetPosition") == 1 and gateway.moves.positions.fetches == 1
    for context, update in zip(contexts, updates, strict=True):
        assert update.match.version == 2
        if context is contexts[0]:
            assert update.view.value == b"v2 secret of seat 0" and list(update.legal_actions) == [MOVE]
        elif context is contexts[1]:
            assert update.view.value == b"v2 secret of seat 1" and not update.legal_actions
        else:
            assert update.view.value == b"v2 public" and not update.legal_actions


async def test_a_submit_answers_the_next_view_and_actions_and_its_watchers_fetch_nothing(gateway: Gateway) -> None:
    mover, other = gateway.seat(1), gateway.seat(0)
    contexts = (other, Context(None), Context(None), Context(None))
    watchers = [asyncio.ensure_future(_first_update(gateway, c, 1)) for c in contexts]
    await asyncio.sleep(0.05)
    reply = await gateway.moves.SubmitAction(pb.SubmitActionRequest(match_id=MATCH, action=MOVE), mover)
    # The mover's own next view and (not being asked again) no legal actions.
    assert reply.version == 2 and reply.match.version == 2
    assert reply.view.value == b"v2 secret of seat 1" and not reply.legal_actions
    seen_by_other, *seen_by_spectators = await asyncio.wait_for(asyncio.gather(*watchers), 5)
    # Nobody else is shown the mover's secret: each its own part.
    assert seen_by_other.view.value == b"v2 secret of seat 0" and list(seen_by_other.legal_actions) == [MOVE]
    assert [seen.view.value for seen in seen_by_spectators] == [b"v2 public"] * 3
    assert "GetPosition" not in gateway.board.calls, "the submit's reply served them, though they heard first"
    # The decision's position left the spectator out: asked once, for that version, for all three.
    assert gateway.board.calls.get("GetView") == 1


async def test_a_seat_token_that_no_longer_holds_the_seat_is_shown_nothing(gateway: Gateway) -> None:
    stale = Context(gateway.tokens.issue_seat(MATCH, 0, "p0", 0)[0])  # an earlier tenure
    with pytest.raises(PermissionDenied) as refused:
        await asyncio.wait_for(_first_update(gateway, stale, 1), 5)
    assert refused.value.reason == "auth.seat_changed"


async def test_a_fetch_from_a_replica_behind_the_version_is_not_kept() -> None:
    class Behind:
        def __init__(self) -> None:
            self.versions = [3, 5]

        async def GetPosition(self, request: mpb.GetPositionRequest) -> mpb.GetPositionResponse:
            return mpb.GetPositionResponse(match=mpb.MatchSummary(match_id=MATCH, version=self.versions.pop(0)))

    positions = Positions(Behind())  # type: ignore[arg-type]
    assert (await positions.at(MATCH, 4)).match.version == 5
    assert positions.fetches == 2


async def test_a_failed_fetch_is_not_kept() -> None:
    class Flaky:
        def __init__(self) -> None:
            self.failures = 1

        async def GetPosition(self, request: mpb.GetPositionRequest) -> mpb.GetPositionResponse:
            if self.failures:
                self.failures -= 1
                raise Unavailable("down for a moment")
            return mpb.GetPositionResponse(match=mpb.MatchSummary(match_id=MATCH, version=1))

    positions = Positions(Flaky())  # type: ignore[arg-type]
    with pytest.raises(Unavailable):
        await positions.at(MATCH, 1)
    assert (await positions.at(MATCH, 1)).match.version == 1
