"""Real processes: the whole stack on free ports, one per test module."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import pytest

from cli.api import Gateway
from deploy.stack import UNLIMITED_CALLERS, Stack

PIG = {"TABLETOP_EXTRA_GAMES": "pig=tests.fixtures.pig"}
# Every stack these tests start inherits this environment: all their calls come
# from 127.0.0.1, so the per-caller limits are off unless a test sets them.
for _name, _value in UNLIMITED_CALLERS.items():
    os.environ.setdefault(_name, _value)


@pytest.fixture(scope="module")
def stack(redis_url: str) -> Iterator[Stack]:
    with Stack(redis_url=redis_url, extra_env=PIG, matchmakers=0) as running:
        yield running


@pytest.fixture
async def gateway(stack: Stack) -> AsyncIterator[Gateway]:
    client = Gateway(stack.gateway_addr)
    yield client
    await client.close()
