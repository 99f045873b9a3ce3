"""The side-by-side: boardgame.io 0.50.2 serving the same minimal game (bench/bgio/).

Its own server (Koa + socket.io, in-memory storage) runs as one Node process,
measured from /proc like Tabletop's stack; a second Node process drives it with
two socket.io clients per match (bench/bgio/drive.js), a move's latency running
until both seats' clients hold the new state. The packages come from
npm (`npm ci` from the committed package-lock.json) into bench/bgio/node_modules,
only when `make bench` runs and Node is present.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass

from bench import cpu
from bench.stats import Run, run_of
from services.common.redis.server import free_port

HERE = pathlib.Path(__file__).resolve().parent / "bgio"
STAMP = HERE / "node_modules" / ".installed"
# Production mode: no development checks or logging, as a deployment would run.
NODE_ENV = {**os.environ, "NODE_ENV": "production"}


def missing() -> str:
    """Why the side-by-side cannot run here ("" when it can)."""
    absent = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    return f"{' and '.join(absent)} not found: the boardgame.io side-by-side is skipped" if absent else ""


def install() -> None:
    """`npm ci` when package-lock.json is newer than the last install."""
    lock = HERE / "package-lock.json"
    if STAMP.exists() and STAMP.stat().st_mtime >= lock.stat().st_mtime:
        return
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE, check=True)
    STAMP.touch()


@dataclass(frozen=True)
class Server:
    url: str
    pid: int


@contextlib.contextmanager
def server() -> Iterator[Server]:
    """boardgame.io's server for the life of the block."""
    port = free_port()
    process = subprocess.Popen(
        ["node", "server.js", str(port)], cwd=HERE, env=NODE_ENV, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:
        assert process.stdout is not None
        while (line := process.stdout.readline()) and line.strip() != b"ready":
            pass
        if process.poll() is not None:
            raise RuntimeError("the boardgame.io server exited at start")
        yield Server(f"http://127.0.0.1:{port}", process.pid)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def load_run(target: Server, matches: int, seconds: float) -> tuple[Run, int]:
    """`matches` matches kept going for `seconds`; the run and the matches that failed.

    The server's CPU is read once the driver has opened every first match and
    again once it has reported, as the Tabletop runs read the stack's.
    """
    driver = subprocess.Popen(
        ["node", "drive.js", target.url, str(matches), str(seconds)],
        cwd=HERE,
        env=NODE_ENV,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert driver.stdin is not None and driver.stdout is not None
    try:
        if driver.stdout.readline().strip() != b"opened":
            raise RuntimeError("the boardgame.io driver failed to open its matches")
        meter = cpu.Meter({"node": target.pid})
        meter.start()
        driver.stdin.write(b"go\n")
        driver.stdin.flush()
        result = json.loads(driver.stdout.readline())
        split = meter.stop()
    finally:
        driver.stdin.close()
        try:
            driver.wait(timeout=30)
        except subprocess.TimeoutExpired:
            driver.kill()
            driver.wait()
    return run_of(result["latencies"], result["wall_seconds"], cpu_by_process=split), int(result["failed"])
