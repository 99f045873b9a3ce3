"""A thin async client of the gateway that keeps each player's session and each seat's token.

Players sign in as guest devices: `sign_in("ana")` makes a random device id
for the name (kept in memory; the CLI keeps its own on disk) and remembers the
session, so `join(match_id, "ana")` acts as that player.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Protocol

import grpc
from google.protobuf import any_pb2, json_format
from google.protobuf.message import Message
from tabletop.gateway.v1 import gateway_pb2 as pb

from contract import payloads
from contract.gateway import GatewayStub
from services.games import registry

# The client's channel: keepalive pings hold a long watch open through idle NATs and
# proxies; a view or log of a long match may exceed gRPC's default 4 MiB.
CHANNEL_OPTIONS: list[tuple[str, int]] = [
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.max_receive_message_length", 8 * 1024 * 1024),
    ("grpc.enable_retries", 1),
]
DEFAULT_GATEWAY = "127.0.0.1:50051"
# Reopenings of a watch in a row that may fail UNAVAILABLE before giving up.
RESUME_ATTEMPTS = 5


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


@dataclass
class Player:
    player_id: str
    session_token: str
    refresh_token: str = ""
    name: str = ""

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return bearer(self.session_token)


@dataclass
class Seat:
    match_id: str
    seat: int
    token: str
    player_id: str = ""

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return bearer(self.token)


class WatchCall(Protocol):
    """A WatchMatch call (the generated stub is untyped): iterate it, or read it one update at a time."""

    def __aiter__(self) -> AsyncIterator[pb.WatchMatchResponse]: ...

    async def __anext__(self) -> pb.WatchMatchResponse: ...

    async def read(self) -> pb.WatchMatchResponse:
        """The next update, or grpc.aio.EOF once the stream has ended."""

    def done(self) -> bool: ...

    def cancel(self) -> bool: ...


@dataclass
class Gateway:
    addr: str = DEFAULT_GATEWAY
    channel: grpc.aio.Channel = field(init=False)
    stub: GatewayStub = field(init=False)
    # Signed-in players by name.
    players: dict[str, Player] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.channel = grpc.aio.insecure_channel(self.addr, options=CHANNEL_OPTIONS)
        self.stub = GatewayStub(self.channel)

    async def close(self) -> None:
        await self.channel.close()

    async def __aenter__(self) -> Gateway:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def sign_in(self, name: str = "host", device_id: str = "") -> Player:
        """The player called `name` here, signed in as a guest device on first use."""
        known = self.players.get(name)
        if known is not None and not device_id:
            return known
        request = pb.AuthenticateRequest(device_id=device_id or uuid.uuid4().hex, display_name=name[:32])
        reply = await self.stub.Authenticate(request)
        player = Player(reply.player_id, reply.session_token, reply.refresh_token, name)
        self.players[name] = player
        return player

    async def _player(self, who: Player | str) -> Player:
        return who if isinstance(who, Player) else await self.sign_in(who)

    async def create(
        self, game: str, seats: int, config: dict[str, str] | None = None, by: Player | str = "host"
    ) -> pb.CreateMatchResponse:
        player = await self._player(by)
        return await self.stub.CreateMatch(
            pb.CreateMatchRequest(game=game, seat_count=seats, config=config or {}, command_id=uuid.uuid4().hex),
            metadata=player.metadata,
        )

    async def join(self, match_id: str, who: Player | str, seat: int | None = None) -> Seat:
        player = await self._player(who)
        request = pb.JoinMatchRequest(match_id=match_id, command_id=uuid.uuid4().hex)
        if seat is not None:
            request.seat = seat
        reply = await self.stub.JoinMatch(request, metadata=player.metadata)
        return Seat(match_id, reply.seat, reply.token, player.player_id)

    async def start(self, seat: Seat) -> int:
        reply = await self.stub.StartMatch(pb.StartMatchRequest(match_id=seat.match_id), metadata=seat.metadata)
        return int(reply.version)

    async def view(self, match_id: str, seat: Seat | None = None) -> pb.GetViewResponse:
        return await self.stub.GetView(pb.GetViewRequest(match_id=match_id), metadata=seat.metadata if seat else None)

    async def legal_actions(self, seat: Seat) -> pb.ListLegalActionsResponse:
        return await self.stub.ListLegalActions(
            pb.ListLegalActionsRequest(match_id=seat.match_id), metadata=seat.metadata
        )

    async def submit(self, seat: Seat, action: any_pb2.Any, command_id: str = "") -> pb.SubmitActionResponse:
        request = pb.SubmitActionRequest(
            match_id=seat.match_id, action=action, command_id=command_id or uuid.uuid4().hex
        )
        return await self.stub.SubmitAction(request, metadata=seat.metadata)

    async def undo(self, seat: Seat, count: int = 1, command_id: str = "") -> pb.UndoActionsResponse:
        request = pb.UndoActionsRequest(match_id=seat.match_id, count=count, command_id=command_id or uuid.uuid4().hex)
        return await self.stub.UndoActions(request, metadata=seat.metadata)

    async def log(self, match_id: str, seat: Seat | None = None, after: int = 0) -> list[pb.LogEntry]:
        entries: list[pb.LogEntry] = []
        while True:
            reply = await self.stub.GetMatchLog(
                pb.GetMatchLogRequest(match_id=match_id, after_version=after),
                metadata=seat.metadata if seat else None,
            )
            if not reply.entries:
                return entries
            entries.extend(reply.entries)
            after = reply.entries[-1].version

    def watch(
        self, match_id: str, seat: Seat | None = None, after: int = 0, with_view: bool = False
    ) -> WatchCall:
        request = pb.WatchMatchRequest(match_id=match_id, after_version=after, with_view=with_view)
        return self.stub.WatchMatch(request, metadata=seat.metadata if seat else None)  # type: ignore[no-any-return]

    async def follow(
        self, match_id: str, seat: Seat | None = None, after: int = 0, attempts: int = RESUME_ATTEMPTS
    ) -> AsyncIterator[pb.WatchMatchResponse]:
        """`watch`, resumed from the last version received when the stream ends
        UNAVAILABLE (a draining gateway, or one that lost Redis for a while)."""
        failures = 0
        while True:
            request = pb.WatchMatchRequest(match_id=match_id, after_version=after)
            call = self.stub.WatchMatch(request, metadata=seat.metadata if seat else None, wait_for_ready=True)
            try:
                async for update in call:
                    after, failures = update.version, 0
                    yield update
                return
            except grpc.aio.AioRpcError as error:
                failures += 1
                if error.code() != grpc.StatusCode.UNAVAILABLE or failures >= attempts:
                    raise


def to_dict(packed: any_pb2.Any, game: str) -> payloads.JsonObject:
    """A game payload (view, action or event) as a JSON-ready dict (without its "@type")."""
    name = packed.type_url.rsplit("/", 1)[-1]
    try:
        known = payloads.payload_types([game])
    except registry.UnknownGame:
        # A game this client was not built with (a server's extra game): name the
        # payload rather than fail; TABLETOP_EXTRA_GAMES teaches the client the game.
        known = {}
    if name not in known:
        return {"type": name}
    found = dict(payloads.to_dict(
        packed, [game], preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    ))
    found.pop("@type", None)
    return found


def message_dict(message: Message) -> payloads.JsonObject:
    return json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
