"""Group commit: the appends that a process's tasks start in one turn of the event loop
go to the server together, as one batch of script calls on one connection; while a
batch is on its way, the appends started meanwhile wait for it and go as the next one.

Each append is still its own script, atomic on its own stream and answered on its
own: grouping changes how the calls travel, not what any of them does. A server that
fsyncs every write syncs once for all it read at once, and reads them in one go;
the client writes once and reads the replies in order, instead of once per append.
On make bench's dice_hand lines this is the store part of an action's CPU (see
docs/design-notes.md, "Group commit"). One batch at a time: a server that fsyncs every
write syncs once per batch, and the batches grow with the load instead of the syncs.

A batch travels on a connection of the group commit's own (at most MOST_OWNED, made
as the pool makes its own), written at once and read back reply by reply: no pool
checkout with its health probe and no pipeline object per batch, which cost the
client more than the batch itself when it carries one or two appends. A batch that
finds them all busy goes through the pool's pipeline as before, and so does every
batch while tracing is on (`through_the_client`), which the stock instrumentation sees.

What travels together must be safe to travel again: a batch whose connection the
server closed (a restart, CLIENT KILL, an idle timeout) goes once more on a new one,
and an append script answers a re-sent run with its first answer (its command id, or
its one-off `once` key), so a retried batch appends nothing twice. A script the
server has forgotten (NOSCRIPT: a restart, a failover, SCRIPT FLUSH) did not run;
that append alone goes again the usual way, which loads the script.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass

import redis.asyncio as aioredis
from redis.commands.core import AsyncScript
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError

from services.common.redis.internals import LeanConnection

# Connections of the group commit's own (outside the pool: no checkout, no pipeline
# object per batch); a batch that finds them all busy goes through the pool instead.
# One batch is on its way at a time, so one is all it uses.
MOST_OWNED = 1


def through_the_client() -> None:
    """Every batch through the pool's pipeline from now on: while tracing is on, the
    stock redis-py instrumentation traces what goes through the client, and an append
    on a connection of the group commit's own would be missing from its trace."""
    global MOST_OWNED
    MOST_OWNED = 0

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
        # The one flush on its way (one batch at a time): it sends what waits until nothing does.
        self._flushing: asyncio.Task[None] | None = None
        self._idle: list[aioredis.Connection] = []
        self._owned = 0

    async def __call__(self, keys: Keys, args: Args) -> Reply:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Reply] = loop.create_future()
        self._waiting.append(_Call(keys, args, answer))
        # A flush that has left its loop is done in the same step (no await between),
        # so one that is not done will still see this call.
        if self._flushing is None or self._flushing.done():
            # Its first step runs in the next turn, after every task that is ready in
            # this one has had the chance to add its append.
            self._flushing = loop.create_task(self._flush())
        return await answer

    async def close(self) -> None:
        """Waits for the batches already on their way."""
        if self._flushing is not None:
            await asyncio.gather(self._flushing, return_exceptions=True)
        idle, self._idle = self._idle, []
        for connection in idle:
            await connection.disconnect()

    async def _flush(self) -> None:
        calls: list[_Call] = []
        try:
            while self._waiting:
                calls, self._waiting = self._waiting, []
                for start in range(0, len(calls), MOST_PER_BATCH):
                    await self._send(calls[start:start + MOST_PER_BATCH])
        finally:
            # Whatever went wrong on the way (a cancellation too, as the process stops),
            # no caller of this batch or of those still waiting is left waiting for ever.
            left, self._waiting = self._waiting, []
            for call in (*calls, *left):
                _fail(call, RedisConnectionError("the append's batch went unanswered"))

    async def _send(self, calls: list[_Call]) -> None:
        try:
            replies = await self._exchange(calls)
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

    async def _exchange(self, calls: list[_Call]) -> list[Reply | Exception]:
        """The batch's replies in order, a refused script's as its error: written at once
        and read back on a connection of the group commit's own, or through the pool's
        pipeline when all of those are busy."""
        connection = self._take()
        if connection is None:
            pipe = self._client.pipeline(transaction=False)
            for call in calls:
                pipe.execute_command("EVALSHA", self._script.sha, len(call.keys), *call.keys, *call.args)
            return await pipe.execute(raise_on_error=False)
        commands = [("EVALSHA", self._script.sha, len(call.keys), *call.keys, *call.args) for call in calls]
        packed = connection.pack_commands(commands)

        async def attempt() -> list[Reply | Exception]:
            try:
                if isinstance(connection, LeanConnection):
                    await connection.send_packed_now(packed)  # this flush began a turn after its first append
                else:
                    await connection.send_packed_command(packed, check_health=False)
                replies: list[Reply | Exception] = []
                for _ in calls:
                    try:
                        replies.append(await connection.read_response())
                    except ResponseError as refused:
                        replies.append(refused)
                return replies
            except BaseException:
                await connection.disconnect(nowait=True)
                raise

        try:
            try:
                return await attempt()
            except RedisConnectionError:
                # The server closed the connection while it sat idle (a restart, CLIENT KILL,
                # its idle timeout): the batch goes once more on a new one, and a re-sent
                # append script answers with its first run's answer.
                return await attempt()
        finally:
            self._idle.append(connection)

    def _take(self) -> aioredis.Connection | None:
        """One of the group commit's own connections that is free, None when all are busy."""
        if self._idle:
            return self._idle.pop()
        if self._owned >= MOST_OWNED:
            return None
        self._owned += 1
        # Made as the pool makes its own (its class and settings: LeanConnection, password,
        # name, timeouts); redis-py leaves make_connection unannotated.
        made: aioredis.Connection = self._client.connection_pool.make_connection()  # type: ignore[no-untyped-call]
        return made


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
