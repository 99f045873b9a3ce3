"""Each service's Redis user reaches only its own keys, reads only what it must, and can
neither administer the server nor flush, kill or load its scripts and functions.

Every rule comes from one table (services/common/redis/keys.py OWNERS and CHANNELS): the
table is held to the code that names the keys and to what must stay secret, the
server (one, and an embedded cluster) is asked about every user against every family
(ACL DRYRUN) and refuses real commands alike, and a whole stack plays, matchmakes,
backfills bots and rates under its users without one refusal, leaving no key outside
the table.
"""

from __future__ import annotations

import asyncio
import fnmatch
import random
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import redis
import redis.exceptions
from tabletop.match.v1 import match_service_pb2 as mpb

from cli import autoplay
from cli.api import Gateway, Seat
from cli.queue import queue
from deploy.stack import Stack
from gateway import identity
from services.common import players
from services.common.redis import keys
from services.common.redis import server as redis_server
from services.common.redis.credentials import (
    IN_PROCESS_USERS,
    LAUNCHER_USERS,
    SERVICE_USERS,
    hosted_roles,
    roles_of,
    user_of,
)
from services.common.redis.keys import DECK, DICE, GATEWAY, MATCH, MATCHMAKER
from services.common.store import redis_store
from services.match import deadlines, directory
from services.matchmaker import claims, projection
from services.matchmaker import store as mm

pytestmark = pytest.mark.integration
USERS = (*SERVICE_USERS, *IN_PROCESS_USERS)
MATCH_ID = "m-1"


def sample(pattern: str) -> str:
    """A key of the family: every `*` of its glob stands for one id."""
    return pattern.replace("*", MATCH_ID)


def family_of(key: str) -> list[keys.Keys]:
    return [f for f in keys.OWNERS if fnmatch.fnmatchcase(key, f.pattern)]


def may_read(user: str, family: keys.Keys) -> bool:
    roles = roles_of(user)
    return family.owner in roles or bool(set(family.readers) & set(roles))


def may_write(user: str, family: keys.Keys) -> bool:
    return family.owner in roles_of(user)


# ---------------------------------------------------------------- the table against the code


def _named_keys() -> list[tuple[str, str]]:
    """Every key name the code base builds, with the role whose code writes it."""
    stream = keys.match_stream(MATCH_ID)
    named = [(k, MATCH) for k in (*redis_store._keys(stream), *redis_store._lease_keys(stream),
                                   redis_store._appended_at_key(stream))]
    named += [
        ("{" + stream + "}:once:0f1e", MATCH),  # redis_store append: one call's answer
        (redis_store.INDEX_KEY, MATCH), (directory.INDEX_KEY, MATCH), (directory.DIRECTORY_KEY, MATCH),
        (deadlines.DEADLINES_KEY, MATCH), (keys.FINISHED_STREAM, MATCH),
        (keys.dice_seed(MATCH_ID), DICE), (keys.dice_revealed(MATCH_ID), DICE),
        (keys.deck_pile(MATCH_ID, "market", 3), DECK), (keys.deck_index(MATCH_ID), DECK),
        (identity._key("device", "d" * 16), GATEWAY), (players.key("p-1"), GATEWAY),
    ]
    matchmaker = [
        mm.ticket_key("t1"), mm.pool_key(mm.pool_name("pig", {"target": "x"})), mm.job_key(MATCH_ID),
        mm.lock_key("pig:{}"), mm.live_key("pig", "p-1"), mm.POOLS, mm.REPLICAS, mm.JOBS, mm.BOTS, mm.EVENTS,
        mm.BOT_SEQ, mm.HEARD, f"{mm.PREFIX}cmd:p-1:c1",  # store.enqueue's command key
        claims.dead_letters(mm.JOBS), f"{mm.JOBS}:failures:1-0",  # WorkQueue._failed's counter
        projection.COUNTED, projection.CURSOR, projection.GAMES,
        projection.ratings_key("pig"), projection.board_key("pig"),
    ]
    return named + [(k, MATCHMAKER) for k in matchmaker]


def test_every_key_the_code_names_is_in_one_family_written_by_its_role() -> None:
    for key, writer in _named_keys():
        found = family_of(key)
        assert len(found) == 1, f"{key} is in {len(found)} families"
        assert found[0].owner == writer, f"{key} is {found[0].owner}'s, written by {writer}"


def test_every_channel_the_code_publishes_on_is_in_the_table() -> None:
    assert [c.pattern for c in keys.CHANNELS] == [redis_store.APPENDED_CHANNEL]
    assert keys.CHANNELS[0].publisher == MATCH and keys.CHANNELS[0].subscribers == (GATEWAY,)


def test_secrets_are_read_by_their_owner_alone() -> None:
    # Stated apart from the table, so a table grown too loose fails here: seeds and pile
    # orders, a snapshot (the whole state, hidden hands included), command answers,
    # sign-in identities.
    secret = [keys.dice_seed(MATCH_ID), keys.dice_revealed(MATCH_ID), keys.deck_pile(MATCH_ID, "market", 0),
              keys.deck_index(MATCH_ID), *redis_store._keys(keys.match_stream(MATCH_ID))[1:],
              identity._key("custom", "c" * 16)]
    for key in secret:
        (found,) = family_of(key)
        assert found.readers == () and found.consumers == (), key


def test_the_gateway_reads_match_logs_and_nothing_else_of_another_role() -> None:
    foreign = [f.pattern for f in keys.OWNERS if f.owner != GATEWAY and may_read(GATEWAY, f)]
    assert foreign == ["{match:*}:log"]
    assert not [f for f in keys.OWNERS if f.owner != GATEWAY and may_write(GATEWAY, f)]


def test_every_shape_of_process_has_a_user_of_its_roles() -> None:
    transports = ("MATCH", "DICE", "DECK", "MATCHMAKER")
    for service in SERVICE_USERS:
        for mask in range(1 << len(transports)):
            env = {f"TABLETOP_{t}_TRANSPORT": "inprocess" for i, t in enumerate(transports) if mask >> i & 1}
            roles = hosted_roles(service, env)
            assert service in roles and user_of(roles) in LAUNCHER_USERS, (service, env)
    gateway_with_all = {f"TABLETOP_{t}_TRANSPORT": "inprocess" for t in transports}
    assert user_of(hosted_roles(GATEWAY, gateway_with_all)) == "gateway+match+dice+deck+matchmaker"
    assert hosted_roles(MATCHMAKER, gateway_with_all) == (MATCHMAKER,)


# ---------------------------------------------------------------- the server enforces the table


@dataclass
class Server:
    """An embedded server or cluster: admin clients of every node, and its users' URLs."""

    nodes: list[redis_server.RedisProcess]
    cluster: bool

    def admins(self) -> list[redis.Redis]:
        return [redis.Redis.from_url(n.url, socket_timeout=5) for n in self.nodes]

    def client(self, user: str) -> redis.Redis:
        url = self.nodes[0].url_for(user)
        if self.cluster:
            return redis.RedisCluster.from_url(url, socket_timeout=5)  # type: ignore[return-value]
        return redis.Redis.from_url(url, socket_timeout=5)


@pytest.fixture(scope="module", params=["server", "cluster"])
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    if request.param == "server":
        single = redis_server.start()
        try:
            yield Server([single], cluster=False)
        finally:
            single.stop()
        return
    cluster = redis_server.start_cluster(3)
    try:
        yield Server(list(cluster.nodes), cluster=True)
    finally:
        cluster.stop()


def allowed(server: Server, user: str, *command: str) -> bool:
    """ACL DRYRUN on every node (each holds its own copy of the ACL): all must agree."""
    answers = set()
    for admin in server.admins():
        with admin:
            answers.add(admin.execute_command("ACL", "DRYRUN", user, *command) == b"OK")
    assert len(answers) == 1, f"the nodes disagree on {user} {command}"
    return answers.pop()


def test_each_user_reads_and_writes_exactly_what_the_table_gives_it(server: Server) -> None:
    for user in USERS:
        for family in keys.OWNERS:
            key = sample(family.pattern)
            assert allowed(server, user, "GET", key) == may_read(user, family), (user, key)
            assert allowed(server, user, "SET", key, "x") == may_write(user, family), (user, key)
            if may_write(user, family):
                continue
            for command in (("DEL", key), ("XADD", key, "*", "e", "x"), ("HSET", key, "f", "x"),
                            ("EXPIRE", key, "1"), ("XTRIM", key, "MAXLEN", "0"), ("UNLINK", key)):
                assert not allowed(server, user, *command), (user, command)


def test_a_consumer_moves_its_group_but_never_writes_the_stream(server: Server) -> None:
    finished = keys.FINISHED_STREAM
    (family,) = family_of(finished)
    assert family.consumers == (MATCHMAKER,)
    group = ("XREADGROUP", "GROUP", "ratings", "r1", "COUNT", "1", "STREAMS", finished, ">")
    for user in USERS:
        member = bool(set(family.consumers) & set(roles_of(user)))
        assert allowed(server, user, *group) == member, user
        assert allowed(server, user, "XACK", finished, "ratings", "1-0") == member, user
        assert allowed(server, user, "XGROUP", "CREATE", finished, "ratings", "0", "MKSTREAM") == member, user
    for command in (("XADD", finished, "*", "match_id", "forged"), ("DEL", finished), ("XDEL", finished, "1-0"),
                    ("XGROUP", "DESTROY", finished, "ratings"), ("XTRIM", finished, "MAXLEN", "0")):
        assert not allowed(server, MATCHMAKER, *command), command


def test_only_the_publisher_publishes_and_only_subscribers_listen(server: Server) -> None:
    (channel,) = keys.CHANNELS
    for user in USERS:
        roles = roles_of(user)
        assert allowed(server, user, "PUBLISH", channel.pattern, "match:m-1 9") == (channel.publisher in roles)
        assert allowed(server, user, "SUBSCRIBE", channel.pattern) == bool(set(channel.subscribers) & set(roles))
        for command in (("PUBLISH", "elsewhere", "x"), ("SUBSCRIBE", "elsewhere"), ("PSUBSCRIBE", "*"),
                        ("SPUBLISH", channel.pattern, "x"), ("PUBSUB", "CHANNELS")):
            assert not allowed(server, user, *command), (user, command)


FORBIDDEN = (
    ("SCRIPT", "FLUSH"), ("SCRIPT", "KILL"), ("FUNCTION", "FLUSH"), ("FUNCTION", "DELETE", "lib"),
    ("FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 1 end)"),
    ("FUNCTION", "RESTORE", "x"), ("FCALL", "f", "0"), ("EVAL", "return 1", "0"),
    ("FLUSHALL",), ("FLUSHDB",), ("KEYS", "*"), ("SCAN", "0"), ("RANDOMKEY",), ("DBSIZE",), ("SWAPDB", "0", "1"),
    ("CONFIG", "SET", "appendonly", "no"), ("CONFIG", "GET", "dir"), ("ACL", "SETUSER", "x", "on"), ("ACL", "LIST"),
    ("SHUTDOWN",), ("DEBUG", "SLEEP", "0"), ("MONITOR",), ("CLIENT", "KILL", "ID", "1"), ("CLIENT", "LIST"),
    ("CLIENT", "PAUSE", "100"), ("INFO",), ("BGREWRITEAOF",), ("REPLICAOF", "NO", "ONE"), ("MODULE", "LIST"),
    ("SORT", sample("{match:*}:log")), ("CLUSTER", "RESET"), ("CLUSTER", "FORGET", "x"),
)


def test_no_service_user_administers_flushes_or_scripts_the_server(server: Server) -> None:
    for user in USERS:
        for command in FORBIDDEN:
            assert not allowed(server, user, *command), (user, command)


def test_real_commands_meet_the_same_refusals(server: Server) -> None:
    seed, pile, log = keys.dice_seed(MATCH_ID), keys.deck_pile(MATCH_ID, "market", 0), sample("{match:*}:log")
    commands = sample("{match:*}:cmd")
    with server.client("admin") as admin:
        admin.set(seed, b"\x01" * 32)
        admin.set(pile, '["c1", "c2"]')
        admin.xadd(log, {"e": b"x"}, id="1-0")
    with server.client(GATEWAY) as gateway:
        assert gateway.xrange(log) and gateway.xlen(log) == 1  # the gateway reads match logs
        for refused in (lambda: gateway.get(seed), lambda: gateway.get(pile), lambda: gateway.set(seed, b"0"),
                        lambda: gateway.xadd(log, {"e": b"forged"}), lambda: gateway.delete(log),
                        lambda: gateway.hset(commands, "c", "1:1:f"),
                        lambda: gateway.publish(keys.APPENDED_CHANNEL, "x"),
                        lambda: gateway.script_flush(), lambda: gateway.function_flush()):
            with pytest.raises(redis.exceptions.NoPermissionError):
                refused()
    with server.client(DICE) as dice, pytest.raises(redis.exceptions.NoPermissionError):
        dice.get(pile)
    with server.client(DECK) as deck, pytest.raises(redis.exceptions.NoPermissionError):
        deck.get(seed)
    with server.client(MATCHMAKER) as matchmaker:
        # A script runs with its caller's rights: declared or not, another's key stays shut.
        steal = matchmaker.register_script("return redis.call('GET', KEYS[1])")
        with pytest.raises(redis.exceptions.NoPermissionError):
            steal(keys=[seed])
        sneak = matchmaker.register_script(f"return redis.call('GET', '{seed}')")
        with pytest.raises(redis.exceptions.ResponseError, match="ACL failure in script"):
            sneak(keys=[mm.ticket_key("t1")])
        assert matchmaker.xgroup_create(keys.FINISHED_STREAM, "acl-test", id="0", mkstream=True)
        with pytest.raises(redis.exceptions.NoPermissionError):
            matchmaker.xadd(keys.FINISHED_STREAM, {"match_id": "forged", "game": "pig"})


# ---------------------------------------------------------------- a whole stack under its users

PIG = {"TABLETOP_EXTRA_GAMES": "pig=tests.fixtures.pig", "TABLETOP_BOT_BACKFILL_AFTER": "0.5"}


async def _play_against_bots(gateway: Gateway, seat: Seat, rng: random.Random) -> None:
    """Random legal moves for the one human seat; on a bot's turn, wait for the log to move."""
    while True:
        summary = (await gateway.view(seat.match_id, seat)).match
        if summary.status == mpb.MATCH_STATUS_FINISHED:
            return
        if seat.seat in summary.to_move:
            legal = (await gateway.legal_actions(seat)).actions
            await gateway.submit(seat, legal[rng.randrange(len(legal))], f"acl-{summary.version}")
            continue
        updates = gateway.watch(seat.match_id, seat, after=summary.version)
        await updates.read()
        updates.cancel()


def _ratings_caught_up(admin: redis.Redis) -> bool:
    """The ratings' consumer group has taken and acknowledged the finished stream's last entry."""
    last = admin.xrevrange(keys.FINISHED_STREAM, count=1)
    groups = {g["name"]: g for g in admin.xinfo_groups(keys.FINISHED_STREAM)} if last else {}
    ratings = groups.get(b"ratings")
    return ratings is not None and ratings["last-delivered-id"] == last[0][0] and ratings["pending"] == 0


async def _rated(admin: redis.Redis, finished: int, within: float = 30.0) -> None:
    """Block on the finished stream until it holds `finished` entries and the ratings took them all."""
    deadline = asyncio.get_running_loop().time() + within
    while not (admin.xlen(keys.FINISHED_STREAM) >= finished and _ratings_caught_up(admin)):
        assert asyncio.get_running_loop().time() < deadline, "the ratings never took the finished matches"
        # Wakes at the next entry, or after 0.2 s to look at the group again.
        await asyncio.to_thread(admin.xread, {keys.FINISHED_STREAM: "$"}, block=200)


def _clients(node: redis_server.RedisProcess) -> list[dict[str, str]]:
    with redis.Redis.from_url(node.url, socket_timeout=5) as admin:
        return admin.client_list()


def _admin(node: redis_server.RedisProcess, cluster: bool) -> redis.Redis:
    if cluster:
        return redis.RedisCluster.from_url(node.url, socket_timeout=5)  # type: ignore[return-value]
    return redis.Redis.from_url(node.url, socket_timeout=5)


async def _play_everything(stack: Stack) -> int:
    """Lobby matches (one to its end, one of hidden piles and rolls) and a matchmade one
    that bots backfill; how many matches finished."""
    async with Gateway(stack.gateway_addr) as gateway:
        await autoplay.play_match(gateway, "pig", 2, seed=1)
        await autoplay.play_match(gateway, "el_dorado", 2, seed=3, stop_after=30)
        found = await queue(stack.gateway_addr, "pig", 2, 2, {}, "acl-device-000001", "Ada")
        seat = Seat(found["match_id"], found["seat"], found["token"], found["player_id"])
        await _play_against_bots(gateway, seat, random.Random(2))
    return 2


@pytest.mark.parametrize("cluster", [False, True], ids=["server", "cluster"])
async def test_a_whole_stack_works_under_its_users_with_no_refusal(cluster: bool) -> None:
    started = redis_server.start_cluster(3) if cluster else redis_server.start()
    nodes = started.nodes if isinstance(started, redis_server.RedisCluster) else [started]
    env = {**PIG, "REDIS_CLUSTER": "1"} if cluster else PIG
    try:
        with Stack(redis_url=started.url, extra_env=env, games=("pig", "el_dorado"), matchmakers=1) as stack:
            finished = await _play_everything(stack)
            with _admin(nodes[0], cluster) as admin:
                await _rated(admin, finished)
            connected = {(c["name"], c["user"]) for node in nodes for c in _clients(node)}
        # Each process as its own user: none as admin, none as another's.
        assert {name: user for name, user in connected if name} == {
            f"tabletop-{role}": role for role in SERVICE_USERS}
        written: set[str] = set()
        for node in nodes:
            with redis.Redis.from_url(node.url, socket_timeout=5) as admin:
                # Not one command of any process was refused (ACL LOG keeps every refusal).
                assert admin.acl_log() == []
                for key in admin.scan_iter(count=1000):
                    found = family_of(key.decode())
                    assert len(found) == 1, f"{key!r} is in {len(found)} families of the table"
                    written.add(found[0].owner)
        # Every role wrote its keys under its own user, so every user was put to work.
        assert written == set(SERVICE_USERS)
    finally:
        started.stop()
