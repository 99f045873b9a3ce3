"""The in-run baseline a placed ticket is divided by: one gRPC round trip plus one
fsynced append, the least any design of one durable operation pays.

bench/bare_server.py serves it (the floor of `make bench`, used here without
its watch streams): a message in on a bidi stream, one XADD of 200 bytes to an
embedded server of its own (append-only file, fsync on every write, as the
stack's), the message back. Its CPU is the bare server's plus that server's.
"""

from __future__ import annotations

import asyncio
import pathlib
import tempfile
import time
from dataclasses import dataclass

import grpc

from bench import cpu
from bench.bare_server import PLAY
from bench.floor import bare_server
from services.common.redis import server as redis_server


@dataclass(frozen=True)
class Baseline:
    ops: int
    seconds: float
    cpu_seconds: float

    @property
    def cpu_ms_per_op(self) -> float:
        return 1000 * self.cpu_seconds / self.ops if self.ops else 0.0


async def _drive(addr: str, lanes: int, seconds: float, meter: cpu.Meter) -> tuple[int, float]:
    channel = grpc.aio.insecure_channel(addr)
    calls = [channel.stream_stream(PLAY)() for _ in range(lanes)]
    names = [f"scale-lane-{i}".encode() for i in range(lanes)]
    for call, name in zip(calls, names):  # opened, and the server's store connection too
        await call.write(name)
        await call.read()
    ops = 0

    async def lane(call: grpc.aio.StreamStreamCall, name: bytes, stop_at: float) -> None:
        nonlocal ops
        while time.perf_counter() < stop_at:
            await call.write(name)
            await call.read()
            ops += 1

    meter.start()
    started = time.perf_counter()
    await asyncio.gather(*(lane(c, n, started + seconds) for c, n in zip(calls, names)))
    wall = time.perf_counter() - started
    for call in calls:
        await call.done_writing()
    await channel.close()
    return ops, wall


def measure(lanes: int = 16, seconds: float = 4.0) -> Baseline:
    """The baseline's CPU per operation, `lanes` operations in flight for `seconds`."""
    with tempfile.TemporaryDirectory(prefix="tabletop-scale-floor-") as data:
        server = redis_server.start(data_dir=pathlib.Path(data))
        try:
            with bare_server(server.url) as bare:
                assert server.process is not None
                meter = cpu.Meter({"bare_server": bare.pid, "redis": server.process.pid})
                ops, wall = asyncio.run(_drive(bare.addr, lanes, seconds, meter))
                used = sum(meter.stop().values())
        finally:
            server.stop()
    return Baseline(ops, wall, used)
