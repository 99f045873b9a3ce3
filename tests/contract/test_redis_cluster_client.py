"""The cluster client (services/common/redis/internals.py `LeanCluster`) on a real
three-master cluster: its connections are the lean ones, a command goes to the node of
its first key's slot (the slot redis-py's own routing finds), and a command whose keys
span slots is still refused."""

from __future__ import annotations

import uuid

import pytest
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisClusterException, ResponseError

from services.common.redis import client as redis_client
from services.common.redis.internals import LeanCluster, LeanConnection

# (command, arguments) in the shapes this code base sends; {t} is one hash tag.
SHAPES = [
    ("GET", ["{t}:a"]),
    ("HSET", ["{t}:h", "f", "v"]),
    ("HMGET", ["{t}:h", "f", "g"]),
    ("XADD", ["{t}:log", "*", "e", "x"]),
    ("ZADD", ["{t}:z", "GT", 1, "m"]),
    ("DEL", ["{t}:a", "{t}:b"]),
    ("EVALSHA", ["0" * 40, 3, "{t}:a", "{t}:b", "{t}:c", "arg"]),
    ("EVAL", ["return 1", 2, "{t}:a", "{t}:b"]),
]


@pytest.mark.parametrize(("command", "args"), SHAPES, ids=[c for c, _ in SHAPES])
async def test_a_command_goes_to_the_slot_redis_py_finds(redis_cluster_url: str, command: str, args: list) -> None:
    tag = f"slot-{uuid.uuid4().hex}"
    filled = [a.replace("{t}", "{" + tag + "}") if isinstance(a, str) else a for a in args]
    lean = redis_client.connect(redis_cluster_url, cluster=True)
    stock = RedisCluster.from_url(redis_cluster_url)
    try:
        await lean.initialize()
        await stock.initialize()
        assert isinstance(lean, LeanCluster)
        found = await lean._determine_slot(command, *filled)
        assert found == await RedisCluster._determine_slot(stock, command, *filled)
        assert found == lean.keyslot("{" + tag + "}")
    finally:
        await lean.aclose()
        await stock.aclose()


async def test_its_connections_are_the_lean_ones_on_every_node(redis_cluster_url: str) -> None:
    client = redis_client.connect(redis_cluster_url, cluster=True)
    try:
        for index in range(24):  # keys enough to reach every master
            key = f"{{lean-{index}-{uuid.uuid4().hex}}}"
            await client.set(key, b"1")
            assert await client.get(key) == b"1"
        nodes = client.get_primaries()
        assert len(nodes) == 3
        for node in nodes:
            assert node.connection_class is LeanConnection
            assert node._connections, "every master was written to"
            assert all(isinstance(c, LeanConnection) for c in node._connections)
    finally:
        await client.aclose()


async def test_keys_of_two_slots_are_refused(redis_cluster_url: str) -> None:
    client = redis_client.connect(redis_cluster_url, cluster=True)
    try:
        first, second = "{cross-a}", "{cross-b}"
        assert client.keyslot(first) != client.keyslot(second)
        with pytest.raises((ResponseError, RedisClusterException)) as refused:
            await client.eval("return redis.call('GET', KEYS[2])", 2, first, second)
        assert "CROSSSLOT" in str(refused.value) or "slot" in str(refused.value).lower()
    finally:
        await client.aclose()
