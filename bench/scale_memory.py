"""`python -m bench.scale_memory`: resident memory per match and per watch stream, by tier.

The stack runs in the services shape (one process per tier, the embedded single
Redis), playing pig as `make scale` does. After a warm-up (a few matches opened
and watched, so that code paths and first-use caches are loaded), the resident
set (VmRSS in /proc/<pid>/status) of every process is read; then MEMORY_MATCHES
matches are opened (created, every seat joined, started) and held, and it is
read again; then MEMORY_STREAMS Play streams are opened on their seats, each on
its own connection as each player's client holds one, each held once it has
brought its first state, and it is read a third time. The differences divided
by the counts are bytes per match and per stream; a last reading after a pause
with nothing opened shows how much a tier drifts on its own (the noise).

Resident memory grows in allocator arenas, not object by object, and a Python
process seldom gives memory back, so the figures are what holding more matches
and streams costs, not what one costs alone; counts in the hundreds lift them
above that grain. The match process caches at most services/match/repository.py
CACHE_SIZE matches, so past that many per replica its cost per match stops.

The last line printed is one line of JSON: per tier, bytes per match and per
stream, the three readings and the drift.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

from tabletop.gateway.v1 import gateway_pb2 as pb

from bench.load import named_pids
from bench.scale_stack import PIG, tier_of
from cli import autoplay
from cli.api import Gateway, Seat
from deploy.stack import UNLIMITED_CALLERS, Stack

GAME = "pig"
SEATS = 2


@dataclass(frozen=True)
class MemorySettings:
    matches: int = 1000  # what the recorded figures used: about 30 s in all on this machine
    streams: int = 2000
    warmup: int = 8
    concurrency: int = 16  # matches opened at once
    settle_seconds: float = 3.0  # after opening, before a reading: let queued work finish

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> MemorySettings:
        env = os.environ if env is None else env
        d = cls()
        return cls(
            matches=int(env.get("MEMORY_MATCHES", d.matches)),
            streams=int(env.get("MEMORY_STREAMS", d.streams)),
            warmup=int(env.get("MEMORY_WARMUP", d.warmup)),
            concurrency=int(env.get("MEMORY_CONCURRENCY", d.concurrency)),
            settle_seconds=float(env.get("MEMORY_SETTLE_SECONDS", d.settle_seconds)),
        )


def rss_bytes(pid: int) -> int:
    """A process's resident set now (VmRSS), in bytes."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def rss_by_tier(pids: Mapping[str, int]) -> dict[str, int]:
    """Resident bytes summed by tier ("rules-pig" counts as rules)."""
    tiers: dict[str, int] = {}
    for name, pid in pids.items():
        tiers[tier_of(name)] = tiers.get(tier_of(name), 0) + rss_bytes(pid)
    return dict(sorted(tiers.items()))


def per_item(before: Mapping[str, int], after: Mapping[str, int], count: int) -> dict[str, int]:
    """Bytes each of `count` items added to every tier between two readings."""
    return {tier: round((after[tier] - before[tier]) / count) if count else 0 for tier in after}


async def open_matches(addr: str, count: int, concurrency: int, first_seed: int) -> list[Seat]:
    """`count` started pig matches, every seat joined; every seat of them."""
    gate = asyncio.Semaphore(concurrency)

    async def one(seed: int) -> list[Seat]:
        async with gate:
            return await autoplay.open_match(gateway, GAME, SEATS, seed)

    async with Gateway(addr) as gateway:
        opened = await asyncio.gather(*(one(first_seed + i) for i in range(count)))
    return [seat for seats in opened for seat in seats]


@dataclass
class HeldStream:
    """A seat's Play stream, open on its own connection and kept open until `close`."""

    gateway: Gateway
    call: Any
    release: asyncio.Event

    @classmethod
    async def open(cls, addr: str, seat: Seat) -> HeldStream:
        gateway, release = Gateway(addr), asyncio.Event()

        async def requests() -> AsyncIterator[pb.PlayRequest]:
            yield pb.PlayRequest(watch=pb.WatchMatchRequest(match_id=seat.match_id, with_legal_actions=True))
            await release.wait()  # the request side stays open: the stream is held

        call = gateway.stub.Play(requests(), metadata=seat.metadata)
        await call.read()  # its first state: the stream is established at the gateway
        return cls(gateway, call, release)

    async def close(self) -> None:
        self.release.set()
        self.call.cancel()
        await self.gateway.close()


async def open_streams(addr: str, seats: list[Seat], count: int, concurrency: int) -> list[HeldStream]:
    """`count` held Play streams, over the seats in turn."""
    gate = asyncio.Semaphore(concurrency)

    async def one(seat: Seat) -> HeldStream:
        async with gate:
            return await HeldStream.open(addr, seat)

    return list(await asyncio.gather(*(one(seats[i % len(seats)]) for i in range(count))))


def _say(message: str) -> None:
    print(f"[memory] {message}", file=sys.stderr, flush=True)


async def measure(stack: Stack, settings: MemorySettings) -> dict[str, Any]:
    """The three readings around opening matches and streams, and what each item cost."""
    addr = stack.gateway_addr

    def reading() -> dict[str, int]:
        return rss_by_tier(named_pids(stack))

    warm = await open_matches(addr, settings.warmup, settings.concurrency, first_seed=1_000_000)
    for stream in await open_streams(addr, warm, len(warm), settings.concurrency):
        await stream.close()
    await asyncio.sleep(settings.settle_seconds)
    idle = reading()
    started = time.perf_counter()
    seats = await open_matches(addr, settings.matches, settings.concurrency, first_seed=0)
    _say(f"{settings.matches} matches opened in {time.perf_counter() - started:.1f} s")
    await asyncio.sleep(settings.settle_seconds)
    with_matches = reading()
    started = time.perf_counter()
    streams = await open_streams(addr, seats, settings.streams, settings.concurrency)
    _say(f"{settings.streams} streams opened in {time.perf_counter() - started:.1f} s")
    await asyncio.sleep(settings.settle_seconds)
    with_streams = reading()
    await asyncio.sleep(settings.settle_seconds)
    later = reading()  # nothing opened since: what a tier drifts by on its own
    for stream in streams:
        await stream.close()
    return {
        "matches": settings.matches,
        "streams": settings.streams,
        "bytes_per_match": per_item(idle, with_matches, settings.matches),
        "bytes_per_stream": per_item(with_matches, with_streams, settings.streams),
        "rss_idle": idle,
        "rss_with_matches": with_matches,
        "rss_with_streams": with_streams,
        "drift_bytes": {tier: later[tier] - with_streams[tier] for tier in later},
    }


def _table(found: Mapping[str, Any]) -> str:
    lines = [f"{'tier':<11}{'idle MiB':>10}{'B/match':>10}{'B/stream':>10}{'drift KiB':>11}"]
    for tier, idle in found["rss_idle"].items():
        lines.append(f"{tier:<11}{idle / 2**20:>10.1f}{found['bytes_per_match'][tier]:>10}"
                     f"{found['bytes_per_stream'][tier]:>10}{found['drift_bytes'][tier] / 1024:>11.0f}")
    return "\n".join(lines)


def main() -> int:
    settings = MemorySettings.from_env()
    env = {**PIG, **UNLIMITED_CALLERS}
    stack = Stack(games=(GAME,), extra_env=env)
    try:
        started = time.perf_counter()
        stack.start()
        _say(f"{len(stack.procs)} processes up in {time.perf_counter() - started:.0f} s")
        found = asyncio.run(measure(stack, settings))
    finally:
        stack.stop()
    print(_table(found), file=sys.stderr)
    print(json.dumps(found, separators=(",", ":")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
