"""Group commit: the appends that a process's tasks start in one turn of the event loop
go to the server together, as one pipeline of script calls on one connection.

Each append is still its own script, atomic on its own stream and answered on its
own: grouping changes how the calls travel, not what any of them does. A server that
fsyncs every write syncs once for all it read at once, and reads them in one go;
the client takes one connection from its pool, writes once and reads the replies in
order, instead of once per append. On make bench's dice_hand lines this is the store
part of an action's CPU (see docs/design-notes.md, "Group commit").

What travels together must be safe to travel again: redis-py's pipeline re-sends the
whole batch after a dropped connection, and an append script answers a re-sent run
with its first answer (its command id, or its one-off `once` key), so a retried
batch appends nothing twice. A script the server has forgotten (NOSCRIPT: a restart,
a failover, SCRIPT FLUSH) did not run; that append alone goes again the usual way,
which loads the script.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass

import redis.asyncio as aioredis
from redis.commands.core import AsyncScript
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError

# Bounded so one pipeline stays well within a command's timeout and the server's
# query buffer; a turn that starts more appends sends them in several pipelines.
MOST_PER_BATCH = 64

Keys = Sequence[str]
Args = Sequence[str | bytes | int]
# A script's reply as redis-py hands it over (here: the append's status array).
Reply = list[bytes | int]


@dataclass
class _Call:
    keys: Keys
    args: Args
    answer: asyncio.Future[Reply]


class GroupCommit:
    """Runs `script` for its callers, the calls of one turn of the loop in one pipeline."""

    def __init__(self, client: aioredis.Redis, script: AsyncScript) -> None:
        self._client = client
        self._script = script
        self._waiting: list[_Call] = []
        self._flushes: set[asyncio.Task[None]] = set()

    async def __call__(self, keys: Keys, args: Args) -> Reply:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Reply] = loop.create_future()
        self._waiting.append(_Call(keys, args, answer))
        if len(self._waiting) == 1:
            # Its first step runs in the next turn, after every task that is ready in
            # this one has had the chance to add its append.
            flush = loop.create_task(self._flush())
            self._flushes.add(flush)
            flush.add_done_callback(self._flushes.discard)
        return await answer

    async def close(self) -> None:
        """Waits for the batches already on their way."""
        if self._flushes:
            await asyncio.gather(*self._flushes, return_exceptions=True)

    async def _flush(self) -> None:
        calls, self._waiting = self._waiting, []
        try:
            for start in range(0, len(calls), MOST_PER_BATCH):
                await self._send(calls[start:start + MOST_PER_BATCH])
        finally:
            # Whatever went wrong on the way, no caller is left waiting for ever.
            for call in calls:
                _fail(call, RedisConnectionError("the append's batch went unanswered"))

    async def _send(self, calls: list[_Call]) -> None:
        if len(calls) == 1:  # nothing to group: the script's own call (it loads a forgotten script)
            await _settle(calls[0], self._script(keys=calls[0].keys, args=calls[0].args))
            return
        pipe = self._client.pipeline(transaction=False)
        for call in calls:
            pipe.execute_command("EVALSHA", self._script.sha, len(call.keys), *call.keys, *call.args)
        try:
            replies = await pipe.execute(raise_on_error=False)
        except BaseException as failed:  # noqa: BLE001 -- the batch as a whole (the connection): each caller hears it
            for call in calls:
                _fail(call, failed)
            return
        for call, reply in zip(calls, replies, strict=True):
            if isinstance(reply, NoScriptError):
                await _settle(call, self._script(keys=call.keys, args=call.args))
            elif isinstance(reply, Exception):
                _fail(call, reply)
            elif not call.answer.done():  # a caller that was cancelled no longer waits
                call.answer.set_result(reply)


async def _settle(call: _Call, reply: Awaitable[Reply]) -> None:
    """`call`'s answer from a script call of its own: its result or its failure."""
    try:
        result = await reply
    except BaseException as failed:  # noqa: BLE001 -- handed to the caller, who raises it as its own call would
        _fail(call, failed)
        return
    if not call.answer.done():
        call.answer.set_result(result)


def _fail(call: _Call, failed: BaseException) -> None:
    if call.answer.done():
        return
    if isinstance(failed, asyncio.CancelledError):
        call.answer.cancel()
    else:
        call.answer.set_exception(failed)
