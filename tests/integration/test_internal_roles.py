"""Internal identities held to their role, with real processes and the stack's own certificates.

Every platform identity calls every method of every internal service that its row of the
policy table (services/common/security/authz.py) does not give it: alone, in a Batch and on an
Exchange stream, each is PERMISSION_DENIED `auth.method_denied` and changes nothing. The
methods come from the services' descriptors, so a method the table forgot fails here too.
Then the matchmaker, which plays backfill bots, is held to its bots' seats: a person's La
Isla seat's legal actions (its hidden hand), view and moves are refused to it, its own
bot's are not, and it seats no one in a lobby.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pool, message_factory
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import Message
from tabletop.common.v1 import batch_pb2
from tabletop.deck.v1 import deck_service_pb2  # noqa: F401  (registers the service descriptor)
from tabletop.dice.v1 import dice_service_pb2  # noqa: F401
from tabletop.match.v1 import match_service_pb2 as mpb
from tabletop.match.v1 import match_service_pb2_grpc as mgrpc
from tabletop.matchmaker.v1 import matchmaker_service_pb2  # noqa: F401
from tabletop.rules.v1 import rules_service_pb2  # noqa: F401

from deploy.stack import Stack
from services.common.errors import reason_of
from services.common.rpc import batch
from services.common.security import authz, pki

pytestmark = pytest.mark.integration

GAME = "la_isla"
# Which process of the stack serves each internal service.
PROCESS = {
    authz.MATCH: "match",
    authz.DICE: "dice",
    authz.DECK: "deck",
    authz.RULES: f"rules-{GAME}",
    authz.MATCHMAKER: "matchmaker",
}
PERSON, BOT = f"p-{uuid.uuid4().hex[:20]}", f"bot-{uuid.uuid4().hex[:8]}"
DENIED = grpc.StatusCode.PERMISSION_DENIED.value[0]


def _methods() -> list[MethodDescriptor]:
    """Every method of every internal service, as its descriptor declares it."""
    pool = descriptor_pool.Default()
    return [method for service in PROCESS for method in pool.FindServiceByName(service).methods]


def _full(method: MethodDescriptor) -> str:
    return f"/{method.containing_service.full_name}/{method.name}"


def test_every_method_of_every_internal_service_has_a_row_and_a_process() -> None:
    # A new service or method without a row would be refused to everyone and go unnoticed.
    assert set(PROCESS) == set(authz.TABLE)
    assert {_full(m) for m in _methods()} == set(authz.POLICY)


OUTSIDE = [(caller, m) for m in _methods() for caller in pki.IDENTITIES if not authz.allowed(_full(m), caller)]


@dataclass(frozen=True)
class Table:
    """A started La Isla match the matchmaker formed: a person in seat 0, its bot in seat 1."""

    match_id: str
    person: int
    bot: int


class Calls:
    """Channels to the stack's processes as any platform identity, opened once each."""

    def __init__(self, stack: Stack) -> None:
        self._stack = stack
        self._open: dict[tuple[str, str], grpc.Channel] = {}

    def channel(self, service: str, caller: str) -> grpc.Channel:
        key = (PROCESS[service], caller)
        if key not in self._open:
            self._open[key] = self._stack.channel(key[0], as_identity=caller)
        return self._open[key]

    def call(self, caller: str, method: MethodDescriptor, request: Message) -> Any:
        """`method` as `caller`, whatever its shape; a stream is read to its end."""
        channel = self.channel(method.containing_service.full_name, caller)
        reply = message_factory.GetMessageClass(method.output_type).FromString
        how = (method.client_streaming, method.server_streaming)
        if how == (False, False):
            return channel.unary_unary(_full(method), _bytes, reply)(request, timeout=10)
        if how == (False, True):
            return list(channel.unary_stream(_full(method), _bytes, reply)(request, timeout=10))
        if how == (True, True):
            return list(channel.stream_stream(_full(method), _bytes, reply)(iter([request]), timeout=10))
        return channel.stream_unary(_full(method), _bytes, reply)(iter([request]), timeout=10)

    def match(self, caller: str = "gateway") -> mgrpc.MatchServiceStub:
        return mgrpc.MatchServiceStub(self.channel(authz.MATCH, caller))

    def close(self) -> None:
        for channel in self._open.values():
            channel.close()


def _bytes(message: Message) -> bytes:
    return message.SerializeToString()


@pytest.fixture(scope="module")
def stack(redis_url: str) -> Iterator[Stack]:
    with Stack(redis_url=redis_url, games=(GAME,), matchmakers=1) as running:
        yield running


@pytest.fixture(scope="module")
def calls(stack: Stack) -> Iterator[Calls]:
    opened = Calls(stack)
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def table(calls: Calls) -> Table:
    match_id = f"roles-{uuid.uuid4().hex[:12]}"
    calls.match("matchmaker").FormMatch(mpb.FormMatchRequest(
        match_id=match_id, game=GAME, command_id=f"{match_id}:form",
        players=[mpb.FormedPlayer(player_id=PERSON, display_name="Ana"), mpb.FormedPlayer(player_id=BOT)],
    ), timeout=10)
    formed = Table(match_id, person=0, bot=1)
    # La Isla opens on a secret simultaneous choice: both seats, the person's hand in its actions.
    assert set(_summary(calls, formed).to_move) == {0, 1}
    return formed


def _summary(calls: Calls, table: Table) -> mpb.MatchSummary:
    return calls.match().GetMatch(mpb.GetMatchRequest(match_id=table.match_id), timeout=10).match


def _person_s_move(calls: Calls, table: Table) -> Any:
    """One of the person's legal actions, as the gateway may read it (it names their cards)."""
    legal = calls.match().ListLegalActions(mpb.ListLegalActionsRequest(match_id=table.match_id, seat=table.person))
    assert legal.actions
    return legal.actions[0]


def _request(method: MethodDescriptor, table: Table, move: Any) -> Message:
    """A request that would do harm if it got through: it names the table, the person's
    seat and player, and for SubmitAction one of the person's own legal moves."""
    request = message_factory.GetMessageClass(method.input_type)()
    fields = request.DESCRIPTOR.fields_by_name
    aimed = {"match_id": table.match_id, "seat": table.person, "viewer": table.person, "player_id": PERSON,
             "game": GAME, "ticket_id": "t", "command_id": f"attack-{uuid.uuid4().hex[:8]}"}
    for name, value in aimed.items():
        if name in fields and fields[name].message_type is None and not fields[name].is_repeated:
            setattr(request, name, value)
    if "action" in fields and fields["action"].message_type.full_name == "google.protobuf.Any":
        request.action.CopyFrom(move)  # type: ignore[attr-defined]
    return request


def _refused_alone(error: grpc.RpcError, method: MethodDescriptor) -> None:
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED, error
    assert reason_of(error) == "auth.method_denied"
    # It names the method asked for, nothing of who may call it or where the stack runs.
    details = error.details() or ""
    assert method.name in details and "127.0.0.1" not in details
    assert not any(identity in details.replace(method.name, "") for identity in pki.IDENTITIES)


@pytest.mark.parametrize(("caller", "method"), OUTSIDE, ids=[f"{c}-{m.full_name}" for c, m in OUTSIDE])
def test_each_identity_is_refused_every_method_outside_its_role(
    calls: Calls, table: Table, caller: str, method: MethodDescriptor
) -> None:
    move = _person_s_move(calls, table)
    before = _summary(calls, table)
    with pytest.raises(grpc.RpcError) as refused:
        calls.call(caller, method, _request(method, table, move))
    _refused_alone(refused.value, method)
    assert _summary(calls, table) == before


def _carried(service: str, caller: str) -> list[str]:
    """The methods a Batch or an Exchange of `service` carries that `caller` may not call."""
    return sorted(m for m in batch.request_types(service) if not authz.allowed(f"/{service}/{m}", caller))


def _carriers(carrier: str) -> list[tuple[str, str]]:
    """(service, caller) for each caller who may open `carrier` (Batch, Exchange) of a service
    and carry on it some method it may not call."""
    return [(service, caller) for service in authz.EXCHANGED for caller in pki.IDENTITIES
            if authz.allowed(f"/{service}/{carrier}", caller) and _carried(service, caller)]


BATCHERS, EXCHANGERS = _carriers("Batch"), _carriers("Exchange")


def _calls_of(service: str, caller: str, table: Table, move: Any) -> list[tuple[str, bytes]]:
    pool = descriptor_pool.Default()
    wanted = [pool.FindMethodByName(f"{service}.{name}") for name in _carried(service, caller)]
    return [(m.name, _request(m, table, move).SerializeToString()) for m in wanted]


def _refused_carried(results: list[batch_pb2.BatchResult], names: list[str]) -> None:
    assert [r.WhichOneof("result") for r in results] == ["error"] * len(names)
    assert [(r.error.code, r.error.reason) for r in results] == [(DENIED, "auth.method_denied")] * len(names)


@pytest.mark.parametrize(("service", "caller"), BATCHERS, ids=[f"{c}-{s}" for s, c in BATCHERS])
def test_a_batch_carries_no_call_outside_the_callers_role(
    calls: Calls, table: Table, service: str, caller: str
) -> None:
    move = _person_s_move(calls, table)
    before = _summary(calls, table)
    carried = _calls_of(service, caller, table, move)
    method = descriptor_pool.Default().FindMethodByName(f"{service}.Batch")
    request = message_factory.GetMessageClass(method.input_type)(
        calls=[batch_pb2.BatchCall(method=name, request=body) for name, body in carried])
    reply = calls.call(caller, method, request)
    _refused_carried(list(reply.results), [name for name, _ in carried])
    assert _summary(calls, table) == before


@pytest.mark.parametrize(("service", "caller"), EXCHANGERS, ids=[f"{c}-{s}" for s, c in EXCHANGERS])
def test_an_exchange_carries_no_call_outside_the_callers_role(
    calls: Calls, table: Table, service: str, caller: str
) -> None:
    move = _person_s_move(calls, table)
    before = _summary(calls, table)
    carried = _calls_of(service, caller, table, move)
    method = descriptor_pool.Default().FindMethodByName(f"{service}.Exchange")
    request = message_factory.GetMessageClass(method.input_type)(
        calls=[batch_pb2.ExchangeCall(id=n, method=name, request=body) for n, (name, body) in enumerate(carried, 1)])
    answered = sorted((r for reply in calls.call(caller, method, request) for r in reply.results), key=lambda r: r.id)
    assert [r.id for r in answered] == list(range(1, len(carried) + 1))
    _refused_carried([r.result for r in answered], [name for name, _ in carried])
    assert _summary(calls, table) == before


# ------------------------------------------------------------ the matchmaker, held to its bots' seats


def _person_s_seat_calls(table: Table, move: Any) -> list[tuple[str, Message, str]]:
    """(rpc, request, the reason it is refused) for every call of the person's seat the
    matchmaker's row lets it make for a bot's."""
    seat, match_id = table.person, table.match_id
    return [
        ("ListLegalActions", mpb.ListLegalActionsRequest(match_id=match_id, seat=seat), "legal_actions.bot_seat_only"),
        ("GetView", mpb.GetViewRequest(match_id=match_id, viewer=seat), "view.bot_seat_only"),
        ("SubmitAction", mpb.SubmitActionRequest(match_id=match_id, seat=seat, action=move,
                                                 command_id=f"{match_id}:bot:{seat}:1"), "submit.bot_seat_only"),
    ]


def test_the_table_lists_every_seat_call_tried_here() -> None:
    assert {f"/{authz.MATCH}/{rpc}" for rpc, _, _ in _person_s_seat_calls(Table("m", 0, 1), None)} == \
        set(authz.BOT_SEATS)


def test_the_matchmaker_reads_nothing_of_a_person_s_seat_and_moves_nothing_for_it(
    calls: Calls, table: Table
) -> None:
    move = _person_s_move(calls, table)
    before = _summary(calls, table)
    match = calls.match("matchmaker")
    for rpc, request, reason in _person_s_seat_calls(table, move):
        with pytest.raises(grpc.RpcError) as refused:
            getattr(match, rpc)(request, timeout=10)
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED, rpc
        assert reason_of(refused.value) == reason
        assert PERSON not in (refused.value.details() or "")
    assert _summary(calls, table) == before


def test_nor_through_a_batch_or_an_exchange(calls: Calls, table: Table) -> None:
    move = _person_s_move(calls, table)
    before = _summary(calls, table)
    tried = _person_s_seat_calls(table, move)
    reasons = [(DENIED, reason) for _, _, reason in tried]
    batched = calls.match("matchmaker").Batch(mpb.BatchRequest(
        calls=[batch_pb2.BatchCall(method=rpc, request=r.SerializeToString()) for rpc, r, _ in tried]), timeout=10)
    assert [(r.error.code, r.error.reason) for r in batched.results] == reasons
    exchanged = mpb.ExchangeRequest(calls=[
        batch_pb2.ExchangeCall(id=n, method=rpc, request=r.SerializeToString())
        for n, (rpc, r, _) in enumerate(tried, 1)])
    replies = calls.match("matchmaker").Exchange(iter([exchanged]), timeout=10)
    answered = sorted((r for reply in replies for r in reply.results), key=lambda r: r.id)
    assert [(r.result.error.code, r.result.error.reason) for r in answered] == reasons
    assert _summary(calls, table) == before


def test_the_matchmaker_plays_its_own_bot_s_seat(calls: Calls, table: Table) -> None:
    match = calls.match("matchmaker")
    legal = match.ListLegalActions(mpb.ListLegalActionsRequest(match_id=table.match_id, seat=table.bot), timeout=10)
    seen = match.GetView(mpb.GetViewRequest(match_id=table.match_id, viewer=table.bot), timeout=10)
    assert legal.actions and seen.HasField("view")
    done = match.SubmitAction(mpb.SubmitActionRequest(
        match_id=table.match_id, seat=table.bot, action=legal.actions[0],
        command_id=f"{table.match_id}:bot:{table.bot}:{legal.version}"), timeout=10)
    assert done.version > legal.version
    # The person's secret choice is still theirs to make.
    assert table.person in _summary(calls, table).to_move


def test_the_matchmaker_seats_no_one_in_a_lobby(calls: Calls) -> None:
    lobby = calls.match().CreateMatch(mpb.CreateMatchRequest(
        game=GAME, seat_count=2, command_id=f"lobby-{uuid.uuid4().hex[:8]}"), timeout=10).match
    match = calls.match("matchmaker")
    with pytest.raises(grpc.RpcError) as refused:
        match.JoinMatch(mpb.JoinMatchRequest(match_id=lobby.match_id, player_id=PERSON, command_id="j"), timeout=10)
    assert reason_of(refused.value) == "auth.method_denied"
    # Nor by forming a match over it: FormMatch makes a new match or none.
    with pytest.raises(grpc.RpcError) as refused:
        match.FormMatch(mpb.FormMatchRequest(
            match_id=lobby.match_id, game=GAME, command_id=f"{lobby.match_id}:form",
            players=[mpb.FormedPlayer(player_id=PERSON), mpb.FormedPlayer(player_id=BOT)]), timeout=10)
    assert refused.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert reason_of(refused.value) == "match.exists"
    # And a bot sits only where the matchmaker formed it: not even the gateway seats one.
    with pytest.raises(grpc.RpcError) as refused:
        calls.match().JoinMatch(mpb.JoinMatchRequest(match_id=lobby.match_id, player_id=BOT, command_id="b"),
                                timeout=10)
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert reason_of(refused.value) == "join.bot_player"
    after = calls.match().GetMatch(mpb.GetMatchRequest(match_id=lobby.match_id), timeout=10).match
    assert after == lobby
