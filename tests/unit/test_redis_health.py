"""The health watcher reports every change of Redis's state, from the state reported first."""

from __future__ import annotations

import asyncio

from redis.exceptions import ConnectionError as RedisConnectionError

from services.common.redis import health as redis_health


class Scripted:
    """A probe whose answers the test lists: True answers, False fails."""

    def __init__(self, answers: list[bool]) -> None:
        self._answers = answers

    async def ping(self) -> None:
        up = self._answers.pop(0) if len(self._answers) > 1 else self._answers[0]
        if not up:
            raise RedisConnectionError("down")


async def test_a_process_that_started_while_redis_was_down_becomes_serving() -> None:
    reports: asyncio.Queue[bool] = asyncio.Queue()
    probe = Scripted([False, False, True, False, True])
    watcher = asyncio.create_task(redis_health.watch(probe, reports.put, up=False, every=0.001))  # type: ignore[arg-type]
    try:
        seen = [await asyncio.wait_for(reports.get(), 5) for _ in range(3)]
        assert seen == [True, False, True]
    finally:
        watcher.cancel()
