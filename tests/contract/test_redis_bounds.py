"""Bounded Redis pools on a real server: past the bound a command waits briefly,
then fails with an error that maps to UNAVAILABLE or RESOURCE_EXHAUSTED."""

from __future__ import annotations

import time
import uuid

import grpc
import pytest

from services.common.redis import client as redis_client
from services.common.redis import health as redis_health
from services.common.redis.faults import FAULTS, to_service_error


def assert_clean(message: str) -> None:
    assert "127.0.0.1" not in message and "Error" not in message, message


async def test_a_full_pool_waits_its_timeout_then_fails_unavailable(redis_url: str) -> None:
    client = redis_client.connect(redis_url, max_connections=1, pool_timeout=0.2)
    held = await client.connection_pool.get_connection()  # the only connection
    try:
        started = time.monotonic()
        with pytest.raises(FAULTS) as failed:
            await client.get(f"bounds-{uuid.uuid4().hex}")
        assert 0.2 <= time.monotonic() - started < 2.0
        error = to_service_error(failed.value)
        assert error.code == grpc.StatusCode.UNAVAILABLE
        assert_clean(error.message)
    finally:
        await client.connection_pool.release(held)
    assert await client.get(f"bounds-{uuid.uuid4().hex}") is None  # usable again once released
    await client.aclose()


async def test_a_full_cluster_pool_is_resource_exhausted(redis_cluster_url: str) -> None:
    client = redis_client.connect(redis_cluster_url, cluster=True, max_connections=1)
    key = f"{{bounds-{uuid.uuid4().hex}}}"
    await client.get(key)  # learns the slots
    node = client.get_node_from_key(key)
    held = node.acquire_connection()  # the only connection to the node of this key
    try:
        with pytest.raises(FAULTS) as failed:
            await client.get(key)
        error = to_service_error(failed.value)
        assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED, error.code
        assert_clean(error.message)
    finally:
        node.release(held)
    await client.aclose()


async def test_the_health_probe_answers_while_the_pool_is_full(redis_url: str) -> None:
    client = redis_client.connect(redis_url, max_connections=1, pool_timeout=0.2)
    probe = redis_health.Probe(client)
    held = await client.connection_pool.get_connection()
    try:
        assert await redis_health.answers(probe), "a busy pool is not a Redis that is down"
    finally:
        await client.connection_pool.release(held)
        await probe.close()
        await client.aclose()
