"""The platform end to end: real Redis-compatible server, real processes, real clients."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys

import grpc
import pytest
from google.protobuf import any_pb2
from tabletop.common.v1 import common_pb2
from tabletop.gateway.v1 import gateway_pb2 as gpb
from tabletop.match.v1 import events_pb2 as ev
from tabletop.match.v1 import match_service_pb2 as mpb
from tabletop.testing.v1 import pig_pb2

from cli import autoplay
from cli.api import Gateway, Seat
from deploy.stack import ROOT, Stack
from services.common.redis.keys import match_stream
from services.common.store.redis_store import RedisEventStore
from services.dice.verify import verify
from services.games import registry
from services.match.lifecycle import PLATFORM_EVENTS
from tests.fixtures import pig

pytestmark = pytest.mark.integration


def packed(message) -> any_pb2.Any:
    wrapped = any_pb2.Any()
    wrapped.Pack(message)
    return wrapped


ROLL = packed(pig_pb2.Action(roll=pig_pb2.Roll()))
HOLD = packed(pig_pb2.Action(hold=pig_pb2.Hold()))


async def started_pig(gateway: Gateway, seats: int = 2) -> list[Seat]:
    match_id = (await gateway.create("pig", seats)).match.match_id
    joined = [await gateway.join(match_id, f"player-{i}") for i in range(seats)]
    await gateway.start(joined[0])
    return joined


async def to_move(gateway: Gateway, match_id: str) -> list[int]:
    return list((await gateway.view(match_id)).match.to_move)


async def code_of(call) -> grpc.StatusCode | None:
    """The status code a call fails with (None if it succeeds)."""
    try:
        await call
    except grpc.aio.AioRpcError as failure:
        return failure.code()
    return None


async def test_full_pig_match_ends_with_a_ranking_and_verifies(gateway):
    result = await autoplay.play_match(gateway, "pig", 3, seed=11)
    assert result.summary.status == mpb.MATCH_STATUS_FINISHED
    assert sorted(result.summary.outcome.ranking)[0] == 1
    entries = await gateway.log(result.match_id)
    report = verify((e.version, e.type, e.event.value) for e in entries)
    assert report.ok, report.problems
    assert report.rolls > 0 and report.shuffles == 1 and report.deals >= 3
    assert report.deals == 3 + report.puts  # every swap puts one card back and deals one


@pytest.mark.parametrize("game", [g for g in registry.GAMES])
async def test_full_match_of_every_game_through_the_gateway(gateway, stack, game):
    if game not in stack.games:
        pytest.skip(f"{game} engine not in this build")
    info = registry.game(game).engine
    players = max(info.min_seats, 2)
    result = await autoplay.play_match(gateway, game, players, seed=5)
    assert result.summary.status == mpb.MATCH_STATUS_FINISHED
    assert len(result.summary.outcome.ranking) == players
    assert result.actions > 0
    entries = await gateway.log(result.match_id)
    assert verify((e.version, e.type, e.event.value) for e in entries).ok


async def test_retried_command_appends_nothing_and_returns_first_answer(gateway):
    seats = await started_pig(gateway)
    mover = seats[(await to_move(gateway, seats[0].match_id))[0]]
    first = await gateway.submit(mover, ROLL, command_id="same-command")
    again = await gateway.submit(mover, ROLL, command_id="same-command")
    assert (again.version, again.duplicate, first.duplicate) == (first.version, True, False)
    assert (await gateway.view(mover.match_id)).match.version == first.version


async def test_bad_requests_get_their_status_and_change_nothing(gateway):
    seats = await started_pig(gateway)
    match_id = seats[0].match_id
    before = (await gateway.view(match_id)).match.version
    mover = seats[(await to_move(gateway, match_id))[0]]
    waiting = seats[1 - mover.seat]
    junk = any_pb2.Any(type_url="type.googleapis.com/tabletop.testing.v1.Action", value=b"\xff\xff")
    other_game = packed(common_pb2.Outcome())
    assert await code_of(gateway.submit(mover, junk)) == grpc.StatusCode.INVALID_ARGUMENT
    assert await code_of(gateway.submit(mover, other_game)) == grpc.StatusCode.INVALID_ARGUMENT
    assert await code_of(gateway.submit(mover, HOLD)) == grpc.StatusCode.FAILED_PRECONDITION
    assert await code_of(gateway.submit(waiting, ROLL)) == grpc.StatusCode.FAILED_PRECONDITION
    forged = Seat(match_id, mover.seat, mover.token[:-2] + "xx")
    assert await code_of(gateway.submit(forged, ROLL)) == grpc.StatusCode.UNAUTHENTICATED
    elsewhere = (await started_pig(gateway))[0]
    assert await code_of(gateway.submit(Seat(match_id, 0, elsewhere.token), ROLL)) == grpc.StatusCode.PERMISSION_DENIED
    assert await code_of(gateway.view("no-such-match")) == grpc.StatusCode.NOT_FOUND
    assert await code_of(gateway.create("no-such-game", 2)) == grpc.StatusCode.INVALID_ARGUMENT
    assert await code_of(gateway.create("pig", 9)) == grpc.StatusCode.INVALID_ARGUMENT
    assert (await gateway.view(match_id)).match.version == before


async def test_illegal_move_names_the_rule(gateway):
    seats = await started_pig(gateway)
    mover = seats[(await to_move(gateway, seats[0].match_id))[0]]
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await gateway.submit(mover, HOLD)
    from services.common.errors import reason_of

    assert reason_of(refused.value) == "pig.hold.nothing_to_bank"


async def next_update(client: Gateway, seat: Seat, after: int) -> None:
    """Block until the match has moved past version `after` (one live update)."""
    updates = client.watch(seat.match_id, seat, after=after)
    try:
        await updates.read()
    finally:
        updates.cancel()


async def test_twenty_racing_clients_leave_one_linear_log_that_replays(gateway, stack):
    seats = await started_pig(gateway, seats=2)
    match_id = seats[0].match_id

    async def client(index: int) -> int:
        rng, applied = random.Random(index), 0
        own = Gateway(stack.gateway_addr)
        try:
            seat = seats[index % 2]
            while (await own.view(match_id)).match.status != mpb.MATCH_STATUS_FINISHED:
                reply = await own.legal_actions(seat)
                legal = reply.actions
                if not legal:
                    # Not this seat's turn: block until the match moves on, instead of polling.
                    await next_update(own, seat, reply.version)
                    continue
                try:
                    await own.submit(seat, legal[rng.randrange(len(legal))])
                    applied += 1
                except grpc.aio.AioRpcError as error:
                    assert error.code() in (
                        grpc.StatusCode.FAILED_PRECONDITION,
                        grpc.StatusCode.ABORTED,
                        grpc.StatusCode.RESOURCE_EXHAUSTED,
                    )
        finally:
            await own.close()
        return applied

    applied = await asyncio.wait_for(asyncio.gather(*(client(i) for i in range(20))), 240)
    store = RedisEventStore.from_url(stack.redis_url)
    try:
        log = await store.read(match_stream(match_id))
    finally:
        await store.close()
    assert [e.version for e in log] == list(range(1, len(log) + 1))
    commands = [e.command_id for e in log if e.command_id and e.type == "tabletop.testing.v1.Event"]
    assert sum(applied) == len(set(commands))
    state = replay_pig(log)
    live = pig_pb2.View()
    (await gateway.view(match_id)).view.Unpack(live)
    assert list(live.scores) == list(state.scores) and live.finished


def replay_pig(log):
    """Fold a Pig match log with the engine alone: no dice, no deck."""
    codec = registry.codec_of(pig.GAME)
    created = ev.MatchCreated.FromString(log[0].data)
    state = pig.ENGINE.setup(dict(created.config), created.seat_count)
    for stored in log:
        if stored.type not in PLATFORM_EVENTS:
            message = pig_pb2.Event.FromString(stored.data)
            state = pig.ENGINE.evolve(state, codec.decode_event(message))
    return state


async def test_views_and_streams_never_carry_other_seats_secrets(gateway):
    seats = await started_pig(gateway, seats=3)
    match_id = seats[0].match_id
    for seat in seats:
        view = pig_pb2.View()
        (await gateway.view(match_id, seat)).view.Unpack(view)
        assert view.HasField("my_bonus")
    spectator = pig_pb2.View()
    (await gateway.view(match_id)).view.Unpack(spectator)
    assert not spectator.HasField("my_bonus")
    for viewer in [*seats, None]:
        entries = await gateway.log(match_id, viewer)
        own = viewer.seat if viewer else None
        watched = []
        async for update in gateway.watch(match_id, viewer):
            watched.extend(update.entries)
            break
        for entry in [*entries, *watched]:
            assert_entitled(entry, own)


def assert_entitled(entry, seat):
    """A seat-only event reaches its seat; anyone else gets the redacted form."""
    if entry.visibility.audience == common_pb2.AUDIENCE_SEAT and entry.visibility.seat != seat:
        assert entry.redacted, entry
        if entry.type == ev.ChanceResolved.DESCRIPTOR.full_name:
            hidden = ev.ChanceResolved.FromString(entry.event.value)
            assert not hidden.outcome.cards_drawn.cards and not hidden.request.put_cards.cards
        assert entry.type != "tabletop.testing.v1.Event" or b"bonus_dealt" not in entry.event.value
        message = pig_pb2.Event.FromString(entry.event.value) if entry.type.startswith("tabletop.testing") else None
        assert message is None or message.WhichOneof("kind") == "bonus_hidden"
    if entry.visibility.audience == common_pb2.AUDIENCE_SERVER:
        # Only the servers' undo records reach a seat, and only as their public form.
        assert entry.redacted, entry
        if entry.type == ev.UndoPoint.DESCRIPTOR.full_name:
            assert not ev.UndoPoint.FromString(entry.event.value).HasField("action")
        else:
            assert entry.type == ev.ActionsUndone.DESCRIPTOR.full_name, entry.type
            assert not ev.ActionsUndone.FromString(entry.event.value).state


async def test_verify_fails_on_a_tampered_roll(gateway):
    result = await autoplay.play_match(gateway, "pig", 2, seed=3)
    entries = [(e.version, e.type, e.event.value) for e in await gateway.log(result.match_id)]
    assert verify(entries).ok
    tampered = []
    done = False
    for version, type_name, data in entries:
        if not done and type_name == ev.ChanceResolved.DESCRIPTOR.full_name:
            resolved = ev.ChanceResolved.FromString(data)
            if resolved.request.WhichOneof("kind") == "roll_dice":
                resolved.outcome.dice_rolled.values[0] = resolved.outcome.dice_rolled.values[0] % 6 + 1
                data, done = resolved.SerializeToString(), True
        tampered.append((version, type_name, data))
    report = verify(tampered)
    assert done and not report.ok and "roll" in report.problems[0]


async def test_cli_bots_and_verify(stack):
    env_args = ["--gateway", stack.gateway_addr]
    played = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli",
            "bots",
            "--game",
            "pig",
            "--players",
            "2",
            "--seed",
            "4",
            "--json",
            *env_args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = json.loads(played.stdout.strip().splitlines()[-1])
    assert report["game"] == "pig" and report["actions"] > 0 and len(report["result"]["ranking"]) == 2
    checked = subprocess.run(
        [sys.executable, "-m", "cli", "verify", report["match_id"], "--json", *env_args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        # The verifier replays the game with its engine: the client must know the fixture game.
        env={**os.environ, "TABLETOP_EXTRA_GAMES": "pig=tests.fixtures.pig"},
    )
    assert json.loads(checked.stdout)["ok"] is True


async def test_killing_the_match_process_loses_no_acknowledged_action(redis_url):
    stack = Stack(
        redis_url=redis_url,
        extra_env={"TABLETOP_EXTRA_GAMES": "pig=tests.fixtures.pig", "TABLETOP_SNAPSHOT_EVERY": "7"},
        games=("pig",),
        matchmakers=0,
    )
    stack.start()
    try:
        async with Gateway(stack.gateway_addr) as gateway:
            seats = await started_pig(gateway)
            match_id = seats[0].match_id
            acknowledged = await play_some(gateway, seats, 15, "before")
            stack.kill("match")
            stack.restart("match")
            summary = (await gateway.view(match_id)).match
            assert summary.version >= max(acknowledged)
            acknowledged += await play_some(gateway, seats, 15, "after")
            store = RedisEventStore.from_url(stack.redis_url)
            log = await store.read(match_stream(match_id))
            await store.close()
            # Client command ids are stored in the clients' namespace ("c:").
            commands = {e.command_id for e in log}
            assert {f"c:before-{i}" for i in range(15)} <= commands
            assert [e.version for e in log] == list(range(1, len(log) + 1))
    finally:
        stack.stop()


async def play_some(gateway: Gateway, seats: list[Seat], count: int, tag: str) -> list[int]:
    versions = []
    for i in range(count):
        summary = (await gateway.view(seats[0].match_id)).match
        if summary.status == mpb.MATCH_STATUS_FINISHED:
            break
        seat = seats[summary.to_move[0]]
        legal = (await gateway.legal_actions(seat)).actions
        versions.append((await gateway.submit(seat, legal[0], command_id=f"{tag}-{i}")).version)
    return versions


@pytest.mark.parametrize("game", list(registry.GAMES))
async def test_real_games_never_show_a_seat_what_belongs_to_another(gateway, stack, game):
    if game not in stack.games:
        pytest.skip(f"{game} engine not in this build")
    engine = registry.game(game).engine
    players = min(engine.max_seats, 3)
    result = await autoplay.play_match(gateway, game, players, seed=8, stop_after=12)
    if result.summary.status == mpb.MATCH_STATUS_FINISHED:
        pytest.skip("the match ended before it could be inspected live")
    redacted = 0
    for viewer in [None, *result.seats]:
        own = viewer.seat if viewer else None
        for entry in await gateway.log(result.match_id, viewer):
            assert_entitled(entry, own)
            redacted += entry.redacted
            if entry.visibility.audience == common_pb2.AUDIENCE_SEAT and not entry.redacted:
                assert entry.visibility.seat == own
    assert redacted > 0, "a live match of this game hides something from someone"


async def test_a_flooding_seat_is_slowed_down_and_nothing_changes(gateway):
    seats = await started_pig(gateway)
    mover = seats[(await to_move(gateway, seats[0].match_id))[0]]
    before = (await gateway.view(mover.match_id)).match.version
    # 300 at once: even at 100 calls/s the bucket (100 + 50/s) cannot admit them all.
    codes = await asyncio.gather(*(code_of(gateway.submit(mover, HOLD)) for _ in range(300)))
    assert grpc.StatusCode.RESOURCE_EXHAUSTED in codes
    assert set(codes) <= {grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.FAILED_PRECONDITION}
    assert (await gateway.view(mover.match_id)).match.version == before


async def test_watch_resumes_after_a_given_version(gateway):
    result = await autoplay.play_match(gateway, "pig", 2, seed=13)
    resumed = []
    async for update in gateway.watch(result.match_id, after=10):
        resumed.extend(e.version for e in update.entries)
    assert resumed and resumed[0] == 11 and resumed[-1] == result.summary.version
    assert resumed == sorted(set(resumed))


async def test_play_stream_takes_actions_and_sends_updates(gateway):
    from tabletop.gateway.v1 import gateway_pb2 as gpb

    seats = await started_pig(gateway, seats=1)
    seat = seats[0]
    outbox: asyncio.Queue = asyncio.Queue()
    await outbox.put(gpb.PlayRequest(watch=gpb.WatchMatchRequest(match_id=seat.match_id, with_view=True)))
    await outbox.put(
        gpb.PlayRequest(submit=gpb.SubmitActionRequest(match_id=seat.match_id, action=HOLD, command_id="refused"))
    )
    await outbox.put(
        gpb.PlayRequest(submit=gpb.SubmitActionRequest(match_id=seat.match_id, action=ROLL, command_id="accepted"))
    )

    async def requests():
        while (item := await outbox.get()) is not None:
            yield item

    stream = gateway.stub.Play(requests(), metadata=seat.metadata)
    seen = {"error": None, "accepted": None, "update": 0}
    async for response in stream:
        kind = response.WhichOneof("kind")
        if kind == "error":
            seen["error"] = response.error
        elif kind == "accepted":
            seen["accepted"] = response.accepted
        else:
            seen["update"] += 1
            assert response.update.view.type_url.endswith("tabletop.testing.v1.View")
        if seen["error"] and seen["accepted"] and seen["update"]:
            await outbox.put(None)
            break
    stream.cancel()
    assert seen["error"].code == "FAILED_PRECONDITION" and seen["error"].rule == "pig.hold.nothing_to_bank"
    assert seen["accepted"].version > 0


async def test_a_play_stream_that_watches_for_legal_actions_gets_one_message_per_action(gateway):
    """The watch's update answers the submit (its command id in answered_command_ids), no
    `accepted` beside it; a duplicate and a submit without a command id still get `accepted`."""
    from tabletop.gateway.v1 import gateway_pb2 as gpb

    seat = (await started_pig(gateway, seats=1))[0]
    outbox: asyncio.Queue = asyncio.Queue()
    watch = gpb.WatchMatchRequest(match_id=seat.match_id, with_view=True, with_legal_actions=True)
    await outbox.put(gpb.PlayRequest(watch=watch))

    async def requests():
        while (item := await outbox.get()) is not None:
            yield item

    def submit(command_id: str) -> gpb.PlayRequest:
        request = gpb.SubmitActionRequest(match_id=seat.match_id, action=ROLL, command_id=command_id)
        return gpb.PlayRequest(submit=request)

    stream = gateway.stub.Play(requests(), metadata=seat.metadata)
    responses = stream.__aiter__()

    async def until(wanted):
        while True:
            response = await asyncio.wait_for(responses.__anext__(), 10)
            if wanted(response):
                return response
            assert response.WhichOneof("kind") != "accepted", "an accepted beside the answering update"

    first = await until(lambda r: r.WhichOneof("kind") == "update" and len(r.update.legal_actions) > 0)
    await outbox.put(submit("roll-1"))
    answered = await until(lambda r: "roll-1" in r.update.answered_command_ids)
    assert answered.update.version > first.update.version
    assert answered.update.match.version == answered.update.version
    assert answered.update.view.type_url.endswith("tabletop.testing.v1.View")
    # Drain the updates of that version, then a retry of the same command: a duplicate, answered alone.
    await outbox.put(submit("roll-1"))
    duplicate = await asyncio.wait_for(responses.__anext__(), 10)
    while duplicate.WhichOneof("kind") == "update":
        assert "roll-1" not in duplicate.update.answered_command_ids
        duplicate = await asyncio.wait_for(responses.__anext__(), 10)
    assert duplicate.WhichOneof("kind") == "accepted" and duplicate.accepted.duplicate
    await outbox.put(submit(""))
    plain = await asyncio.wait_for(responses.__anext__(), 10)
    while plain.WhichOneof("kind") == "update":
        assert not plain.update.answered_command_ids
        plain = await asyncio.wait_for(responses.__anext__(), 10)
    assert plain.WhichOneof("kind") == "accepted" and not plain.accepted.duplicate
    assert plain.accepted.version > answered.update.version
    await outbox.put(None)
    stream.cancel()


async def test_a_submit_answers_the_seats_next_view_and_legal_actions(gateway):
    seats = await started_pig(gateway, seats=3)
    match_id = seats[0].match_id
    mover = seats[(await to_move(gateway, match_id))[0]]
    reply = await gateway.submit(mover, ROLL, "roll-1")
    assert reply.match.version == reply.version and not reply.duplicate
    # What a separate GetView and ListLegalActions would answer, with no second call.
    assert reply.view == (await gateway.view(match_id, mover)).view
    seen = pig_pb2.View()
    reply.view.Unpack(seen)
    assert seen.HasField("my_bonus"), "the mover's own view"
    if mover.seat in reply.match.to_move:
        assert list(reply.legal_actions) == list((await gateway.legal_actions(mover)).actions) != []
    else:
        assert not reply.legal_actions
    again = await gateway.submit(mover, ROLL, "roll-1")
    assert again.duplicate and again.version == reply.version


async def test_watchers_of_other_seats_get_their_own_views_never_the_movers(gateway):
    seats = await started_pig(gateway, seats=3)
    match_id = seats[0].match_id
    start = (await gateway.view(match_id)).match.version
    mover = seats[(await to_move(gateway, match_id))[0]]

    async def first_update(viewer):
        request = gpb.WatchMatchRequest(match_id=match_id, after_version=start, with_view=True)
        async for update in gateway.stub.WatchMatch(request, metadata=viewer.metadata if viewer else ()):
            return update

    watchers = [asyncio.ensure_future(first_update(viewer)) for viewer in [*seats, None]]
    await asyncio.sleep(0.3)
    await gateway.submit(mover, ROLL)
    updates = await asyncio.wait_for(asyncio.gather(*watchers), 20)
    version = updates[0].match.version
    for viewer, update in zip([*seats, None], updates, strict=True):
        assert update.match.version == version
        own = (await gateway.view(match_id, viewer)).view
        if (await gateway.view(match_id)).match.version == version:
            assert update.view == own, "each watcher sees exactly its own view"
        seen = pig_pb2.View()
        update.view.Unpack(seen)
        assert seen.HasField("my_bonus") == (viewer is not None)


async def test_lobby_join_leave_start_rules(gateway):
    match_id = (await gateway.create("pig", 2)).match.match_id
    first = await gateway.join(match_id, "ana")
    assert await code_of(gateway.start(first)) == grpc.StatusCode.FAILED_PRECONDITION
    second = await gateway.join(match_id, "ben")
    assert await code_of(gateway.join(match_id, "cid")) == grpc.StatusCode.FAILED_PRECONDITION
    await gateway.stub.LeaveMatch(gpb.LeaveMatchRequest(match_id=match_id), metadata=second.metadata)
    again = await gateway.join(match_id, "cid")
    assert again.seat == second.seat
    await gateway.start(first)
    assert (await gateway.view(match_id)).match.status == mpb.MATCH_STATUS_ACTIVE
    assert await code_of(gateway.join(match_id, "dan")) == grpc.StatusCode.FAILED_PRECONDITION
    seats = [p.player_id for p in (await gateway.view(match_id)).match.seats]
    assert seats == [gateway.players["ana"].player_id, gateway.players["cid"].player_id]
    listed = await gateway.stub.ListMatches(gpb.ListMatchesRequest(game="pig", status=mpb.MATCH_STATUS_ACTIVE))
    assert match_id in {m.match_id for m in listed.matches}


@pytest.mark.parametrize("dependency", ["rules-pig", "dice", "deck"])
async def test_a_dependency_down_is_unavailable_and_changes_nothing(redis_url, dependency):
    stack = Stack(
        redis_url=redis_url, extra_env={"TABLETOP_EXTRA_GAMES": "pig=tests.fixtures.pig"}, games=("pig",), matchmakers=0
    )
    stack.start()
    try:
        async with Gateway(stack.gateway_addr) as gateway:
            seats = await started_pig(gateway, seats=2)
            match_id = seats[0].match_id
            mover = seats[(await to_move(gateway, match_id))[0]]
            before = (await gateway.view(match_id)).match.version
            stack.kill(dependency)
            # A roll needs the rules (to decide) and the dice (to roll); the deck is
            # needed only for swaps, so with the deck down a roll still goes through.
            code = await code_of(gateway.submit(mover, ROLL, command_id="while-down"))
            if dependency == "deck":
                assert code is None
            else:
                assert code == grpc.StatusCode.UNAVAILABLE
                assert (await gateway.view(match_id)).match.version == before
            stack.restart(dependency)
            result = autoplay.BotResult(match_id, "pig", 0, 0.0, mpb.MatchSummary(), [], seats)
            await autoplay.drive(gateway, result, random.Random(1))
            assert result.summary.status == mpb.MATCH_STATUS_FINISHED
            entries = await gateway.log(match_id)
            assert verify((e.version, e.type, e.event.value) for e in entries).ok
    finally:
        stack.stop()


async def test_a_finished_match_replays_to_any_version(gateway):
    result = await autoplay.play_match(gateway, "pig", 2, seed=21)
    match_id, final = result.match_id, result.summary.version
    seat = result.seats[0]

    async def at(version: int, who=None):
        request = gpb.GetViewRequest(match_id=match_id, at_version=version)
        return await gateway.stub.GetView(request, metadata=who.metadata if who else None)

    last = await at(final, seat)
    assert last.match.version == final and last.view == (await gateway.view(match_id, seat)).view
    started = next(e.version for e in await gateway.log(match_id) if e.type.endswith("MatchStarted"))
    early = await at(started + 1)
    assert early.match.version == started + 1 and early.match.status == mpb.MATCH_STATUS_ACTIVE
    assert early.view.type_url.endswith("tabletop.testing.v1.View") and early.view != last.view
    lobby = await at(1)
    assert lobby.match.status == mpb.MATCH_STATUS_LOBBY and not lobby.view.type_url  # no game yet
    for bad in (0, final + 1):
        assert await code_of(at(bad)) == grpc.StatusCode.INVALID_ARGUMENT
    # Once it has ended, anyone sees any seat at any version: the log is public then.
    other = gpb.GetViewRequest(match_id=match_id, at_version=final, as_seat=1)
    assert (await gateway.stub.GetView(other)).view == (await gateway.view(match_id, result.seats[1])).view


async def test_a_match_being_played_replays_to_each_viewer_what_it_could_see_then(gateway):
    live = await started_pig(gateway)
    match_id = live[0].match_id
    seen: dict[int, dict[int | None, object]] = {}
    for _ in range(4):  # a few moves, keeping what each viewer saw at each version
        summary = (await gateway.view(match_id)).match
        seen[summary.version] = {None: (await gateway.view(match_id)).view}
        for seat in live:
            seen[summary.version][seat.seat] = (await gateway.view(match_id, seat)).view
        mover = live[summary.to_move[0]]
        await gateway.submit(mover, (await gateway.legal_actions(mover)).actions[0])

    async def at(version: int, who=None, as_seat=None):
        request = gpb.GetViewRequest(match_id=match_id, at_version=version)
        if as_seat is not None:
            request.as_seat = as_seat
        return await gateway.stub.GetView(request, metadata=who.metadata if who else None)

    for version, views in seen.items():
        assert (await at(version)).view == views[None]
        for seat in live:
            assert (await at(version, seat)).view == views[seat.seat]
            assert (await at(version, seat, as_seat=seat.seat)).view == views[seat.seat]  # one's own seat
    # Another seat's view stays its holder's while the match is played.
    refused = at(max(seen), live[0], as_seat=1)
    assert await code_of(refused) == grpc.StatusCode.PERMISSION_DENIED
    assert await code_of(at(max(seen), as_seat=0)) == grpc.StatusCode.PERMISSION_DENIED
