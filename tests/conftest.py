"""Shared fixtures: a real Redis-compatible server for the whole session.

Without REDIS_URL the embedded server (the project's own binary) is started on
a free port, in a temporary directory, requiring a password: `redis_url` is its
admin URL, credentials included. With REDIS_URL the tests use that server, with
unique key names.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis
from hypothesis import settings

from services.common.redis import server as redis_server

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    with redis_server.redis_url() as url:
        yield url


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    """A plain client of the session's server, closed after the test."""
    client = aioredis.Redis.from_url(redis_url)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture(scope="session")
def redis_cluster_url() -> Iterator[str]:
    """REDIS_CLUSTER_URL if set, else a fresh embedded three-node cluster."""
    external = os.environ.get("REDIS_CLUSTER_URL")
    if external:
        yield external
        return
    cluster = redis_server.start_cluster(3)
    try:
        yield cluster.url
    finally:
        cluster.stop()
