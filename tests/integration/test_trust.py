"""Trust at the boundaries, tried as an attacker would: real processes, real clients.

Every path that used to hand a seat, a ticket or a match to the wrong caller
is refused here: replayed command ids, forged, expired, other-match,
other-player, wrong-kind and after-leaving tokens, and callers who never
signed in.
"""

from __future__ import annotations

import json
import time
from typing import Any

import grpc
import jwt
import pytest
from google.protobuf import any_pb2
from tabletop.gateway.v1 import gateway_pb2 as gpb
from tabletop.match.v1 import match_service_pb2 as mpb
from tabletop.testing.v1 import pig_pb2

from cli.api import Gateway, Seat, bearer
from deploy.stack import Stack
from services.common.security import keyring
from services.common.security.tokens import Lifetimes, TokenAuthority

pytestmark = pytest.mark.integration


def packed(message: Any) -> any_pb2.Any:
    wrapped = any_pb2.Any()
    wrapped.Pack(message)
    return wrapped


ROLL = packed(pig_pb2.Action(roll=pig_pb2.Roll()))


async def status(call: Any) -> grpc.StatusCode:
    try:
        await call
    except grpc.aio.AioRpcError as failure:
        return failure.code()
    return grpc.StatusCode.OK


async def started(gateway: Gateway, names: tuple[str, ...] = ("ana", "ben")) -> list[Seat]:
    match_id = (await gateway.create("pig", len(names))).match.match_id
    seats = [await gateway.join(match_id, name) for name in names]
    await gateway.start(seats[0])
    return seats


def authority(stack: Stack, clock: Any = time.time) -> TokenAuthority:
    """Tokens signed with the stack's own keys (what only the gateway should hold)."""
    return TokenAuthority(keyring.load_file(stack.token_keys_path), Lifetimes(), clock)


# ------------------------------------------------------------ signing in


async def test_a_device_signs_in_as_the_same_player_every_time(gateway: Gateway) -> None:
    device = "a-device-id-of-32-characters-xxx"
    first = await gateway.stub.Authenticate(gpb.AuthenticateRequest(device_id=device))
    again = await gateway.stub.Authenticate(gpb.AuthenticateRequest(device_id=device))
    other = await gateway.stub.Authenticate(gpb.AuthenticateRequest(device_id=device + "-2"))
    assert first.player_id == again.player_id != other.player_id
    assert (first.created, again.created) == (True, False)
    refreshed = await gateway.stub.RefreshSession(gpb.RefreshSessionRequest(refresh_token=first.refresh_token))
    assert refreshed.player_id == first.player_id and refreshed.session_token


async def test_bad_sign_ins_are_refused_precisely(gateway: Gateway) -> None:
    stub = gateway.stub
    assert await status(stub.Authenticate(gpb.AuthenticateRequest())) == grpc.StatusCode.INVALID_ARGUMENT
    assert await status(stub.Authenticate(gpb.AuthenticateRequest(device_id="short"))) == \
        grpc.StatusCode.INVALID_ARGUMENT
    assert await status(stub.Authenticate(gpb.AuthenticateRequest(device_id="x" * 129))) == \
        grpc.StatusCode.INVALID_ARGUMENT
    # No identity provider is configured on this stack.
    assert await status(stub.Authenticate(gpb.AuthenticateRequest(external_token="a.b.c"))) == \
        grpc.StatusCode.FAILED_PRECONDITION
    session = await stub.Authenticate(gpb.AuthenticateRequest(device_id="another-device-id-123"))
    # A session token is not a refresh token, and garbage is neither.
    for token in (session.session_token, "garbage", "x" * 5000):
        refresh = stub.RefreshSession(gpb.RefreshSessionRequest(refresh_token=token))
        assert await status(refresh) == grpc.StatusCode.UNAUTHENTICATED


async def test_joining_creating_and_queueing_need_a_session(gateway: Gateway) -> None:
    match_id = (await gateway.create("pig", 2)).match.match_id
    stub = gateway.stub
    assert await status(stub.JoinMatch(gpb.JoinMatchRequest(match_id=match_id))) == grpc.StatusCode.UNAUTHENTICATED
    assert await status(stub.CreateMatch(gpb.CreateMatchRequest(game="pig", seat_count=2))) == \
        grpc.StatusCode.UNAUTHENTICATED
    # A seat token is not a session.
    seat = await gateway.join(match_id, "ana")
    assert await status(stub.JoinMatch(gpb.JoinMatchRequest(match_id=match_id), metadata=seat.metadata)) == \
        grpc.StatusCode.UNAUTHENTICATED


# ------------------------------------------------------------ command ids


async def test_a_join_replayed_by_another_player_takes_no_seat(gateway: Gateway) -> None:
    match_id = (await gateway.create("pig", 2)).match.match_id
    ana = await gateway.sign_in("ana")
    mallory = await gateway.sign_in("mallory")
    first = await gateway.stub.JoinMatch(gpb.JoinMatchRequest(match_id=match_id, command_id="join-1"),
                                         metadata=ana.metadata)
    again = await gateway.stub.JoinMatch(gpb.JoinMatchRequest(match_id=match_id, command_id="join-1"),
                                         metadata=ana.metadata)
    assert again.seat == first.seat
    stolen = gateway.stub.JoinMatch(gpb.JoinMatchRequest(match_id=match_id, command_id="join-1"),
                                    metadata=mallory.metadata)
    assert await status(stolen) == grpc.StatusCode.ALREADY_EXISTS
    seats = (await gateway.view(match_id)).match.seats
    assert [s.player_id for s in seats] == [ana.player_id, ""]


async def test_the_matchmakers_command_ids_are_out_of_a_clients_reach(gateway: Gateway) -> None:
    """The platform's own ids name the match ('{match}:form', '{match}:seal', the bots'
    '{match}:bot:...'); a client's id of that shape lives in the clients' namespace and
    can only ever be a command of its own."""
    seats = await started(gateway)
    match_id = seats[0].match_id
    mallory = await gateway.sign_in("mallory")
    replay = gateway.stub.JoinMatch(gpb.JoinMatchRequest(match_id=match_id, command_id=f"{match_id}:join:0"),
                                    metadata=mallory.metadata)
    assert await status(replay) == grpc.StatusCode.FAILED_PRECONDITION  # a started match takes no one


async def test_an_action_replayed_by_another_player_is_refused_and_changes_nothing(gateway: Gateway) -> None:
    seats = await started(gateway)
    match_id = seats[0].match_id
    mover = seats[(await gateway.view(match_id)).match.to_move[0]]
    other = seats[1 - mover.seat]
    first = await gateway.submit(mover, ROLL, command_id="act-1")
    assert (await gateway.submit(mover, ROLL, command_id="act-1")).duplicate
    version = (await gateway.view(match_id)).match.version
    assert await status(gateway.submit(other, ROLL, command_id="act-1")) == grpc.StatusCode.ALREADY_EXISTS
    assert (await gateway.view(match_id)).match.version == version == first.version


async def test_a_create_command_id_belongs_to_its_player(gateway: Gateway) -> None:
    ana, ben = await gateway.sign_in("ana"), await gateway.sign_in("ben")

    async def create(who: Any, seats: int) -> Any:
        request = gpb.CreateMatchRequest(game="pig", seat_count=seats, command_id="create-1")
        return await gateway.stub.CreateMatch(request, metadata=who.metadata)

    first, again, bens = await create(ana, 2), await create(ana, 2), await create(ben, 2)
    assert first.match.match_id == again.match.match_id != bens.match.match_id
    assert await status(create(ana, 3)) == grpc.StatusCode.ALREADY_EXISTS


# ------------------------------------------------------------ seat tokens


async def test_forged_expired_and_misdirected_seat_tokens_are_refused(gateway: Gateway, stack: Stack) -> None:
    seats = await started(gateway)
    match_id, seat = seats[0].match_id, seats[0]
    other_match = (await started(gateway, ("cid", "dan")))[0]
    genuine = authority(stack)
    forger = TokenAuthority(keyring.generate("k1"))  # a key the gateway never had
    past = authority(stack, clock=lambda: time.time() - 10 * 24 * 3600)
    ana = gateway.players["ana"].player_id
    cases = {
        "forged": (forger.issue_seat(match_id, 0, ana, 1)[0], grpc.StatusCode.UNAUTHENTICATED),
        "expired": (past.issue_seat(match_id, 0, ana, 1)[0], grpc.StatusCode.UNAUTHENTICATED),
        "other match": (other_match.token, grpc.StatusCode.PERMISSION_DENIED),
        "other player": (genuine.issue_seat(match_id, 0, "p-someoneelse", 1)[0], grpc.StatusCode.PERMISSION_DENIED),
        "old tenure": (genuine.issue_seat(match_id, 0, ana, 0)[0], grpc.StatusCode.PERMISSION_DENIED),
        "absurd seat": (_signed(stack, {"typ": "seat", "sub": ana, "m": match_id, "s": 10**30, "h": 1}),
                        grpc.StatusCode.UNAUTHENTICATED),
        "session as seat": (gateway.players["ana"].session_token, grpc.StatusCode.UNAUTHENTICATED),
        "garbage": ("not-a-token", grpc.StatusCode.UNAUTHENTICATED),
    }
    before = (await gateway.view(match_id)).match.version
    for name, (token, code) in cases.items():
        forged = Seat(match_id, 0, token)
        legal = gateway.stub.ListLegalActions(gpb.ListLegalActionsRequest(match_id=match_id), metadata=forged.metadata)
        assert await status(legal) == code, name
        assert await status(gateway.submit(forged, ROLL)) == code, name
        if name != "session as seat":  # a session token reads as a spectator
            assert await status(gateway.view(match_id, forged)) == code, name
            assert await status(gateway.log(match_id, forged)) == code, name
    assert (await gateway.view(match_id)).match.version == before
    assert await status(gateway.legal_actions(seat)) == grpc.StatusCode.OK


def _signed(stack: Stack, claims: dict[str, Any]) -> str:
    ring = keyring.load_file(stack.token_keys_path)
    body = {**claims, "iss": "tabletop", "iat": int(time.time()), "exp": int(time.time()) + 60}
    return jwt.encode(body, ring.keys[ring.active], algorithm="HS256", headers={"kid": ring.active})


async def test_a_seat_token_dies_when_its_player_leaves_even_if_they_come_back(gateway: Gateway) -> None:
    match_id = (await gateway.create("pig", 2)).match.match_id
    ana = await gateway.join(match_id, "ana")
    await gateway.stub.LeaveMatch(gpb.LeaveMatchRequest(match_id=match_id), metadata=ana.metadata)
    ben = await gateway.join(match_id, "ben")
    assert ben.seat == ana.seat
    # Ana's old token names her and her tenure: neither holds the seat now.
    assert await status(gateway.start(ana)) == grpc.StatusCode.PERMISSION_DENIED
    assert await status(gateway.view(match_id, ana)) == grpc.StatusCode.PERMISSION_DENIED
    assert await status(gateway.stub.LeaveMatch(gpb.LeaveMatchRequest(match_id=match_id),
                                                metadata=ana.metadata)) == grpc.StatusCode.PERMISSION_DENIED
    # Ben leaves, Ana takes the seat again: her first token is still dead, the new one works.
    await gateway.stub.LeaveMatch(gpb.LeaveMatchRequest(match_id=match_id), metadata=ben.metadata)
    back = await gateway.join(match_id, "ana")
    assert back.seat == ana.seat
    assert await status(gateway.view(match_id, ana)) == grpc.StatusCode.PERMISSION_DENIED
    assert await status(gateway.view(match_id, back)) == grpc.StatusCode.OK


async def test_a_watch_by_a_seat_ends_when_the_seat_changes_hands(gateway: Gateway) -> None:
    match_id = (await gateway.create("pig", 2)).match.match_id
    ana = await gateway.join(match_id, "ana")
    watch = gateway.watch(match_id, ana, after=0)
    first = await watch.read()
    assert first.version >= 1
    await gateway.stub.LeaveMatch(gpb.LeaveMatchRequest(match_id=match_id), metadata=ana.metadata)
    with pytest.raises(grpc.aio.AioRpcError) as ended:
        while True:
            await watch.read()
    assert ended.value.code() == grpc.StatusCode.PERMISSION_DENIED


async def test_get_seat_token_gives_a_fresh_token_only_for_a_held_seat(gateway: Gateway) -> None:
    seats = await started(gateway)
    match_id = seats[0].match_id
    ana, mallory = gateway.players["ana"], await gateway.sign_in("mallory")
    fresh = await gateway.stub.GetSeatToken(gpb.GetSeatTokenRequest(match_id=match_id), metadata=ana.metadata)
    assert fresh.seat == seats[0].seat and fresh.expires_at > time.time()
    assert await status(gateway.view(match_id, Seat(match_id, fresh.seat, fresh.token))) == grpc.StatusCode.OK
    stolen = gateway.stub.GetSeatToken(gpb.GetSeatTokenRequest(match_id=match_id), metadata=mallory.metadata)
    assert await status(stolen) == grpc.StatusCode.PERMISSION_DENIED


async def test_tokens_name_their_key_and_survive_a_rotation(redis_url: str, tmp_path: Any) -> None:
    ring_path = tmp_path / "ring.json"
    keyring.create_file(ring_path)
    env = {"TABLETOP_EXTRA_GAMES": "pig=tests.fixtures.pig", "TABLETOP_TOKEN_KEYS_FILE": str(ring_path)}
    stack = Stack(redis_url=redis_url, extra_env=env, games=("pig",), matchmakers=0)
    stack.start()
    try:
        async with Gateway(stack.gateway_addr) as gateway:
            seats = await started(gateway)
            old_kid = jwt.get_unverified_header(seats[0].token)["kid"]
            rotated = keyring.rotate_file(ring_path)
            stack.kill("gateway")
            stack.restart("gateway")
        async with Gateway(stack.gateway_addr) as gateway:
            # Issued before the rotation, still good after it.
            assert await status(gateway.view(seats[0].match_id, seats[0])) == grpc.StatusCode.OK
            player = await gateway.sign_in("new")
            assert jwt.get_unverified_header(player.session_token)["kid"] == rotated.active != old_kid
            assert json.loads(ring_path.read_text())["active"] == rotated.active
    finally:
        stack.stop()


async def test_spectators_see_no_seat_and_cannot_act(gateway: Gateway) -> None:
    seats = await started(gateway)
    match_id = seats[0].match_id
    view = await gateway.view(match_id)
    assert not view.HasField("seat")
    submit = gateway.stub.SubmitAction(gpb.SubmitActionRequest(match_id=match_id, action=ROLL))
    assert await status(submit) == grpc.StatusCode.UNAUTHENTICATED
    watcher = await gateway.sign_in("watcher")
    as_player = await gateway.stub.GetView(gpb.GetViewRequest(match_id=match_id), metadata=watcher.metadata)
    assert not as_player.HasField("seat") and as_player.match.status == mpb.MATCH_STATUS_ACTIVE
    assert await status(gateway.stub.GetView(gpb.GetViewRequest(match_id=match_id), metadata=bearer("x.y.z"))) == \
        grpc.StatusCode.UNAUTHENTICATED


async def test_players_are_shown_by_the_name_they_sign_in_with(gateway: Gateway) -> None:
    match_id = (await gateway.create("pig", 2)).match.match_id
    ana = await gateway.join(match_id, "Ana")
    seats = (await gateway.view(match_id)).match.seats
    assert (seats[ana.seat].display_name, seats[ana.seat].player_id) == ("Ana", gateway.players["Ana"].player_id)
    for bad in ("", " padded ", "x" * 33, "tab\there"):
        request = gpb.AuthenticateRequest(device_id="a-device-for-bad-names", display_name=bad)
        expected = grpc.StatusCode.OK if bad == "" else grpc.StatusCode.INVALID_ARGUMENT
        assert await status(gateway.stub.Authenticate(request)) == expected, bad
    # Leaving clears the seat's name with its player.
    await gateway.stub.LeaveMatch(gpb.LeaveMatchRequest(match_id=match_id), metadata=ana.metadata)
    assert (await gateway.view(match_id)).match.seats[ana.seat].display_name == ""
