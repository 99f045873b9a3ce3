"""One command's write to one match: its lock, its match, one version-checked append.

    async with work.on(match_id, command_id, asked) as unit:
        progress = ...decided against unit.match...
        written = await unit.commit(progress)

`on` holds the match's lock (one writer per match in this process) and hands
the command the match as cached. `commit` closes the batch by the clocks,
sets the keeper's wake-up (services/match/timekeeping.py) and appends it under
the command's id, expecting the stream at the unit's version; once it has
landed, the after-commit steps run: the directory learns of a lifecycle
change, and a finished match releases its piles and is announced. A writer
that lost the race gets None and its unit caught up, to decide again: `write`
is that loop, which every command on an existing match runs; `open` is the
first write of a new match (create and form), where a stream that exists
already is AlreadyExists. A command id applied before returns its first
answer: the append checks it first, and when deciding again fails, the
unit asks the store for it (`answered`).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from services.common import logging as tlog
from services.common.errors import Aborted, AlreadyExists, ServiceError
from services.common.redis.keys import match_stream
from services.common.store.event_store import CommandReused, EventStore, NewEvent, VersionConflict
from services.match.directory import Directory
from services.match.lifecycle import Match, Status
from services.match.repository import CACHE_SIZE, MatchRepository, moved
from services.match.turns import Progress, TurnRunner

if TYPE_CHECKING:
    from services.match.timekeeping import Timing

log = tlog.get("match")
MAX_RETRIES = 8

# What a command does to the current match: decide, then run forward.
Plan = Callable[[Match], Awaitable[Progress]]


@dataclass(frozen=True)
class Written:
    """The stream's version after a command; `match` is None when the command had been
    applied before (its first answer stands)."""

    version: int
    match: Match | None
    appended: tuple[NewEvent, ...] = ()


def fingerprint(*parts: object) -> str:
    """What identifies a request behind its command id: who asked, for which seat, what."""
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:32]


def reused() -> AlreadyExists:
    return AlreadyExists(
        "this command id was already used for another request; use a new id for a new request",
        "command.reused",
    )


class Unit:
    """One command on one match, inside `UnitOfWork.on`: the match to decide against
    (`match`) and the commit of what was decided."""

    def __init__(self, work: UnitOfWork, match: Match, command_id: str, asked: str, new: bool) -> None:
        self.match = match
        self._work = work
        self._command_id = command_id
        self._asked = asked
        self._new = new

    async def answered(self) -> Written | None:
        """The first answer to the command's id if it was applied before; AlreadyExists if
        that id answered another request."""
        if not self._command_id:
            return None
        try:
            done = await self._work.store.command(match_stream(self.match.match_id), self._command_id, self._asked)
        except CommandReused:
            raise reused() from None
        return Written(done.last_version, None) if done is not None else None

    async def commit(self, progress: Progress, mover: int | None = None, ticked: bool = True) -> Written | None:
        """Append `progress`, decided against `match`: closed by the clocks first (`mover`:
        the seat whose own move it was; `ticked` False for a batch that sets them itself).
        None if another writer moved the stream first: `match` is caught up, decide again."""
        work, before = self._work, self.match
        if ticked:
            progress = work.timing.timed(before, progress, mover)
        try:
            await work.timing.schedule(progress.match)
            result = await work.matches.append(before, progress, self._command_id, self._asked)
        except CommandReused:
            raise reused() from None
        except VersionConflict:
            if self._new:
                raise AlreadyExists(f"match {before.match_id} exists", "match.exists") from None
            self.match = await work.matches.catch_up(before.match_id, before)
            return None
        if result.duplicate:
            return Written(result.last_version, None)
        # The repository moved its cache to the appended match already (stepping
        # the undo track over the batch costs as much as the rest of the copy).
        after = work.matches.cached(before.match_id)
        if after is None or after.version != result.last_version:
            after = moved(before, progress, result.last_version)
        await work.after_commit(before, after)
        return Written(result.last_version, after, progress.events)

    async def refused(self) -> bool:
        """After a plan refused the command: whether the refusal stands (the stream is
        still at `match`'s version); else `match` is caught up, to decide again."""
        if await self._work.store.version(match_stream(self.match.match_id)) == self.match.version:
            return True
        self.match = await self._work.matches.catch_up(self.match.match_id, self.match)
        return False


class UnitOfWork:
    def __init__(
        self,
        store: EventStore,
        matches: MatchRepository,
        turns: TurnRunner,
        timing: Timing,
        directory: Directory,
        on_finished: Callable[[str, str], Awaitable[None]] | None = None,
    ) -> None:
        self.store = store
        self.matches = matches
        self.timing = timing
        self._turns = turns
        self._directory = directory
        # Told (match_id, game) once a match has ended, after its last append.
        self._on_finished = on_finished
        self._locks: dict[str, asyncio.Lock] = {}

    @asynccontextmanager
    async def on(self, match_id: str, command_id: str = "", asked: str = "", new: bool = False) -> AsyncIterator[Unit]:
        """A command's hold on `match_id`: the match as cached (`new`: none yet, the
        stream is to be opened), no other writer of this process on it meanwhile."""
        async with self._lock(match_id):
            match = Match(match_id) if new else await self.matches.get(match_id, fresh=False)
            yield Unit(self, match, command_id, asked, new)

    async def write(
        self, match_id: str, command_id: str, asked: str, plan: Plan, mover: int | None = None, ticked: bool = True
    ) -> Written:
        """Decide against the current match and commit, catching up after a lost race."""
        async with self.on(match_id, command_id, asked) as unit:
            for _ in range(MAX_RETRIES):
                try:
                    progress = await plan(unit.match)
                except ServiceError:
                    if (done := await unit.answered()) is not None:
                        return done
                    # A refusal may come from a match another replica has moved past.
                    if await unit.refused():
                        raise
                    continue
                except Exception:
                    if (done := await unit.answered()) is not None:
                        return done
                    raise
                written = await unit.commit(progress, mover, ticked)
                if written is not None:
                    return written
        raise Aborted(f"match {match_id} is too busy, retry", "match.contention")

    async def open(self, match_id: str, command_id: str, asked: str, plan: Plan) -> Written:
        """A new match's first write, `plan` run on the empty match (unless the command
        was applied before); AlreadyExists if the match exists."""
        async with self.on(match_id, command_id, asked, new=True) as unit:
            if (done := await unit.answered()) is not None:
                return done
            written = await unit.commit(await plan(unit.match))
            assert written is not None  # a new stream's lost race is AlreadyExists
            return written

    async def after_commit(self, before: Match, after: Match) -> None:
        """What follows a landed append: the directory, and the end of a match."""
        if after.players != before.players or after.status != before.status:
            await self._directory.put(after.match_id, after.game, int(after.status))
        if after.status == Status.FINISHED and before.status != Status.FINISHED:
            log.info("match_ended", match_id=after.match_id, version=after.version)
            await self._turns.release(after)
            # A lobby closed for idleness was never played: no result to announce.
            if self._on_finished is not None and not after.expired:
                await self._on_finished(after.match_id, after.game)

    def _lock(self, match_id: str) -> asyncio.Lock:
        lock = self._locks.get(match_id)
        if lock is None:
            if len(self._locks) > CACHE_SIZE:
                self._locks = {k: v for k, v in self._locks.items() if v.locked()}
            lock = self._locks[match_id] = asyncio.Lock()
        return lock
