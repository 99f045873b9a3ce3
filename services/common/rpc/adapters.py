"""Adapters that meet the ports (services/common/rpc/ports.py) over either transport.

One class per contract lists its rpcs with their request and response types;
`DiceClient.remote(addr, dial)` carries them over gRPC, `DiceClient.in_process(
servicer, caller)` to a servicer object in this process. mypy checks each class
against its Protocol (see the `_meets_*` functions at the end), and every reply is
checked to be of its declared type at run time, so the declared types cannot lie.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import TYPE_CHECKING, ClassVar, Generic, Self, TypeVar, overload

from google.protobuf.message import Message
from tabletop.deck.v1 import deck_service_pb2 as deck_pb
from tabletop.deck.v1 import deck_service_pb2_grpc as deck_grpc
from tabletop.dice.v1 import dice_service_pb2 as dice_pb
from tabletop.dice.v1 import dice_service_pb2_grpc as dice_grpc
from tabletop.match.v1 import match_service_pb2 as match_pb
from tabletop.match.v1 import match_service_pb2_grpc as match_grpc
from tabletop.matchmaker.v1 import matchmaker_service_pb2 as mm_pb
from tabletop.matchmaker.v1 import matchmaker_service_pb2_grpc as mm_grpc
from tabletop.rules.v1 import rules_service_pb2 as rules_pb
from tabletop.rules.v1 import rules_service_pb2_grpc as rules_grpc

from services.common import metrics
from services.common.errors import ServiceError
from services.common.rpc.coalesce import Coalescing
from services.common.rpc.mux import Exchanging
from services.common.rpc.ports import DeckPort, DicePort, MatchmakerPort, MatchPort, RulesPort
from services.common.rpc.transport import InProcess, Remote, StubClass, Transport
from services.common.security import authz
from services.common.security.tls import ChannelOption, Dial

if TYPE_CHECKING:
    from services.common.rpc.coalesce import BatchRequest

# How a remote client carries unary calls: "stream" (Exchange) or "unary" (a gRPC call each).
STREAM, UNARY = "stream", "unary"
REMOTE_CALLS = (STREAM, UNARY)

Req = TypeVar("Req", bound=Message)
Resp = TypeVar("Resp", bound=Message)


class Adapter:
    """A contract's client over one transport."""

    service: ClassVar[str]  # the full gRPC service name, as the policy table names it
    # The generated stub class (untyped: protoc writes no stubs for *_pb2_grpc).
    stub: ClassVar[StubClass]
    # Methods whose concurrent calls a remote client sends as one Batch call, and the
    # service's BatchRequest (services/common/rpc/coalesce.py).
    batched: ClassVar[tuple[str, ...]] = ()
    batch_request: ClassVar[type[BatchRequest]]
    # The service's ExchangeRequest and ExchangeResponse: its unary calls over one stream
    # (services/common/rpc/mux.py). None: a service without an Exchange.
    exchange: ClassVar[tuple[type[Message], type[Message]] | None] = None

    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    @classmethod
    def remote(
        cls,
        addr: str,
        dial: Dial,
        timeout: float = 5.0,
        options: list[ChannelOption] | None = None,
        calls: str = STREAM,
    ) -> Self:
        """The client over gRPC to `addr`: unary calls as messages on Exchange streams
        (`calls` "stream", the default), or one gRPC call each, busy callers' batched."""
        remote = Remote(cls.stub, addr, dial, timeout, options)
        if calls == STREAM and cls.exchange is not None:
            replies: dict[str, Callable[[bytes], Message]] = {
                name: response.FromString for name, response in cls.unary_responses().items()
            }
            return cls(Metered(Exchanging(remote, cls.service, cls.exchange, replies, timeout), cls.service))
        if not cls.batched:
            return cls(Metered(remote, cls.service))
        replies = {name: getattr(cls, name).response.FromString for name in cls.batched}
        return cls(Metered(Coalescing(remote, cls.batch_request, replies, cls.service), cls.service))

    @classmethod
    def unary_responses(cls) -> dict[str, type[Message]]:
        """The response type of each of the contract's unary rpcs, by the rpc's name."""
        return {name: rpc.response for name, rpc in vars(cls).items() if isinstance(rpc, Rpc)}

    @classmethod
    def in_process(cls, servicer: object, caller: str) -> Self:
        return cls(InProcess(servicer, cls.service, caller))

    async def close(self) -> None:
        await self.transport.close()


class Metered:
    """A remote transport whose calls are counted in grpc_client_* (services/common/metrics.py),
    each as the call it is, whichever way it travels (its own gRPC call, an Exchange message,
    a Batch item)."""

    def __init__(self, inner: Transport, service: str) -> None:
        self.inner = inner
        self._inner = inner
        self._service = service

    async def unary(self, rpc: str, request: Message) -> Message:
        calls = metrics.called(metrics.UNARY, self._service, rpc)
        calls.started.inc()
        started = time.perf_counter()
        try:
            reply = await self._inner.unary(rpc, request)
        except ServiceError as error:
            calls.handled(error.code.name)
            raise
        finally:
            calls.seconds.observe(time.perf_counter() - started)
        calls.handled("OK")
        return reply

    async def stream(self, rpc: str, request: Message) -> AsyncIterator[Message]:
        calls = metrics.called(metrics.SERVER_STREAM, self._service, rpc)
        calls.started.inc()
        started = time.perf_counter()
        try:
            async for item in self._inner.stream(rpc, request):
                yield item
        except ServiceError as error:
            calls.handled(error.code.name)
            raise
        finally:
            calls.seconds.observe(time.perf_counter() - started)
        calls.handled("OK")

    async def close(self) -> None:
        await self._inner.close()


def _checked(reply: Message, expected: type[Resp], rpc: str) -> Resp:
    if not isinstance(reply, expected):
        raise TypeError(f"{rpc} answered {type(reply).__name__}, not {expected.__name__}")
    return reply


class Rpc(Generic[Req, Resp]):
    """A unary rpc: on an adapter, `adapter.Name(request)` returns its typed reply.

    `request` only fixes the type mypy checks callers against; `response` is also checked at run time.
    """

    def __init__(self, request: type[Req], response: type[Resp]) -> None:
        self.response = response
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, adapter: None, owner: type) -> Rpc[Req, Resp]: ...

    # Coroutine[object, None, ...]: asyncio sends a coroutine None, and what it yields is the loop's.
    @overload
    def __get__(self, adapter: Adapter, owner: type) -> Callable[[Req], Coroutine[object, None, Resp]]: ...

    def __get__(
        self, adapter: Adapter | None, owner: type
    ) -> Rpc[Req, Resp] | Callable[[Req], Coroutine[object, None, Resp]]:
        if adapter is None:
            return self
        transport, name, response = adapter.transport, self.name, self.response

        async def call(request: Req) -> Resp:
            return _checked(await transport.unary(name, request), response, name)

        return call


class ServerStream(Generic[Req, Resp]):
    """A server-streaming rpc: on an adapter, `adapter.Name(request)` iterates its typed replies."""

    def __init__(self, request: type[Req], response: type[Resp]) -> None:
        self.response = response
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, adapter: None, owner: type) -> ServerStream[Req, Resp]: ...

    @overload
    def __get__(self, adapter: Adapter, owner: type) -> Callable[[Req], AsyncIterator[Resp]]: ...

    def __get__(
        self, adapter: Adapter | None, owner: type
    ) -> ServerStream[Req, Resp] | Callable[[Req], AsyncIterator[Resp]]:
        if adapter is None:
            return self
        transport, name, response = adapter.transport, self.name, self.response

        async def call(request: Req) -> AsyncIterator[Resp]:
            # Closed early, the call closes the transport's stream at once (and so the rpc).
            async with contextlib.aclosing(transport.stream(name, request)) as items:  # type: ignore[type-var]
                async for item in items:
                    yield _checked(item, response, name)

        return call


class DiceClient(Adapter):
    service, stub = authz.DICE, dice_grpc.DiceServiceStub
    exchange = (dice_pb.ExchangeRequest, dice_pb.ExchangeResponse)
    batched, batch_request = ("CommitSeed", "RollDice", "Permute"), dice_pb.BatchRequest
    CommitSeed = Rpc(dice_pb.CommitSeedRequest, dice_pb.CommitSeedResponse)
    RollDice = Rpc(dice_pb.RollDiceRequest, dice_pb.RollDiceResponse)
    OpenWindow = Rpc(dice_pb.OpenWindowRequest, dice_pb.OpenWindowResponse)
    Permute = Rpc(dice_pb.PermuteRequest, dice_pb.PermuteResponse)
    RevealSeed = Rpc(dice_pb.RevealSeedRequest, dice_pb.RevealSeedResponse)


class DeckClient(Adapter):
    service, stub = authz.DECK, deck_grpc.DeckServiceStub
    exchange = (deck_pb.ExchangeRequest, deck_pb.ExchangeResponse)
    batched, batch_request = ("ShufflePile", "DrawCards", "PutCards"), deck_pb.BatchRequest
    ShufflePile = Rpc(deck_pb.ShufflePileRequest, deck_pb.ShufflePileResponse)
    DrawCards = Rpc(deck_pb.DrawCardsRequest, deck_pb.DrawCardsResponse)
    PutCards = Rpc(deck_pb.PutCardsRequest, deck_pb.PutCardsResponse)
    ReleaseMatch = Rpc(deck_pb.ReleaseMatchRequest, deck_pb.ReleaseMatchResponse)


class RulesClient(Adapter):
    service, stub = authz.RULES, rules_grpc.RulesServiceStub
    exchange = (rules_pb.ExchangeRequest, rules_pb.ExchangeResponse)
    # Not Replay: a rebuild's fold may take long, and a batch answers when its slowest call does.
    batched = ("Setup", "Decide", "ListLegalActions", "GetView", "GetPosition")
    batch_request = rules_pb.BatchRequest
    DescribeGame = Rpc(rules_pb.DescribeGameRequest, rules_pb.DescribeGameResponse)
    Setup = Rpc(rules_pb.SetupRequest, rules_pb.SetupResponse)
    Decide = Rpc(rules_pb.DecideRequest, rules_pb.DecideResponse)
    Replay = Rpc(rules_pb.ReplayRequest, rules_pb.ReplayResponse)
    ListLegalActions = Rpc(rules_pb.ListLegalActionsRequest, rules_pb.ListLegalActionsResponse)
    GetView = Rpc(rules_pb.GetViewRequest, rules_pb.GetViewResponse)
    GetPosition = Rpc(rules_pb.GetPositionRequest, rules_pb.GetPositionResponse)


class MatchClient(Adapter):
    service, stub = authz.MATCH, match_grpc.MatchServiceStub
    exchange = (match_pb.ExchangeRequest, match_pb.ExchangeResponse)
    # Not FormMatch(es), UndoActions or ListMatches: long or rare; a batch answers with its slowest call.
    batched = (
        "CreateMatch", "JoinMatch", "LeaveMatch", "StartMatch", "SubmitAction", "GetMatch", "GetView",
        "ListLegalActions", "GetPosition",
    )
    batch_request = match_pb.BatchRequest
    CreateMatch = Rpc(match_pb.CreateMatchRequest, match_pb.CreateMatchResponse)
    JoinMatch = Rpc(match_pb.JoinMatchRequest, match_pb.JoinMatchResponse)
    LeaveMatch = Rpc(match_pb.LeaveMatchRequest, match_pb.LeaveMatchResponse)
    StartMatch = Rpc(match_pb.StartMatchRequest, match_pb.StartMatchResponse)
    FormMatch = Rpc(match_pb.FormMatchRequest, match_pb.FormMatchResponse)
    FormMatches = Rpc(match_pb.FormMatchesRequest, match_pb.FormMatchesResponse)
    SubmitAction = Rpc(match_pb.SubmitActionRequest, match_pb.SubmitActionResponse)
    UndoActions = Rpc(match_pb.UndoActionsRequest, match_pb.UndoActionsResponse)
    GetMatch = Rpc(match_pb.GetMatchRequest, match_pb.GetMatchResponse)
    ListMatches = Rpc(match_pb.ListMatchesRequest, match_pb.ListMatchesResponse)
    GetView = Rpc(match_pb.GetViewRequest, match_pb.GetViewResponse)
    ListLegalActions = Rpc(match_pb.ListLegalActionsRequest, match_pb.ListLegalActionsResponse)
    GetPosition = Rpc(match_pb.GetPositionRequest, match_pb.GetPositionResponse)


class MatchmakerClient(Adapter):
    service, stub = authz.MATCHMAKER, mm_grpc.MatchmakerServiceStub
    FindMatch = Rpc(mm_pb.FindMatchRequest, mm_pb.FindMatchResponse)
    WatchTicket = ServerStream(mm_pb.WatchTicketRequest, mm_pb.WatchTicketResponse)
    Queue = ServerStream(mm_pb.QueueRequest, mm_pb.QueueResponse)
    CancelTicket = Rpc(mm_pb.CancelTicketRequest, mm_pb.CancelTicketResponse)
    GetRating = Rpc(mm_pb.GetRatingRequest, mm_pb.GetRatingResponse)
    ListLeaderboard = Rpc(mm_pb.ListLeaderboardRequest, mm_pb.ListLeaderboardResponse)


# mypy checks here that each adapter meets its port, whichever code uses them.
def _meets_dice(client: DiceClient) -> DicePort:
    return client


def _meets_deck(client: DeckClient) -> DeckPort:
    return client


def _meets_rules(client: RulesClient) -> RulesPort:
    return client


def _meets_match(client: MatchClient) -> MatchPort:
    return client


def _meets_matchmaker(client: MatchmakerClient) -> MatchmakerPort:
    return client
