"""Start the whole stack as separate processes, in dependency order.

Used by `make run` (the ports of a `ports.Layout`) and by the integration tests and
benchmarks (port 0: each process writes the port it got to a ready file).
Readiness is the gRPC health check answering SERVING, never a sleep.

The stack's certificate authority lives in `data_dir/pki` and the gateway's
token key ring in `data_dir/keys` (created on the first start, reused after):
each process gets its own key and certificate and the CA through TABLETOP_TLS_*;
the launcher health-checks each internal process over mutual TLS with that
process's own identity.
Without a `redis_url` the stack starts the embedded server on its data
directory (`data_dir/redis`) and hands every process a
REDIS_URL of its own ACL user (services/common/redis/credentials.py: the keys
and commands of the roles the process plays); `Stack.redis_url` is the admin
URL. Given the admin URL of an embedded server this Python process started
(the tests' session server), it does the same.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from deploy import ports
from services.common import config
from services.common.config import APART, LOCAL
from services.common.redis import credentials as redis_credentials
from services.common.redis import server as redis_server
from services.common.security import keyring, pki, tls
from services.games.registry import GAMES, add_package, available

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Load generators and tests call from one address: this lifts the gateway's
# per-address limits (tests of those limits set their own).
UNLIMITED_CALLERS = {
    "TABLETOP_CALLER_CALLS": "0",
    "TABLETOP_CALLER_STREAMS": "0",
    "TABLETOP_CALLER_CREATE_RATE": "0",
    "TABLETOP_CALLER_TICKET_RATE": "0",
    "TABLETOP_CALLER_SIGNIN_RATE": "0",
    # ... and the per-player create and ticket rates: a harness creates many matches as one player.
    "TABLETOP_CREATE_RATE": "0",
}
# The platform identity (certificate common name) each process module runs as.
IDENTITY = {
    "gateway": "gateway",
    "services.match": "match",
    "services.dice": "dice",
    "services.deck": "deck",
    "services.rules": "rules",
    "services.matchmaker": "matchmaker",
}


# The processes whose services only the stack's own processes call.
INTERNAL = ("match", "rules", "dice", "deck")


@dataclass
class Proc:
    name: str
    module: str
    env: dict[str, str]
    process: subprocess.Popen[bytes] | None = None
    port: int = 0
    metrics_port: int = -1
    # The plaintext health-only port (TABLETOP_HEALTH_PORT); -1 where the process has none.
    health_port: int = -1
    log_path: pathlib.Path | None = None
    # The Unix domain socket it also listens on (TABLETOP_UNIX_SOCKET), where it has one.
    socket: pathlib.Path | None = None


class ProcessFailed(RuntimeError):
    """A process of the stack exited or never became ready while the stack started."""

    def __init__(self, proc: Proc, message: str) -> None:
        super().__init__(message)
        self.proc = proc

    @property
    def ports(self) -> list[int]:
        """The fixed ports it was told to bind (none when it was to pick free ones)."""
        wanted = (self.proc.env.get("TABLETOP_PORT", "0"), self.proc.env.get("TABLETOP_METRICS_PORT", "0"))
        return [int(port) for port in wanted if port.isdigit() and int(port) > 0]


@dataclass
class Stack:
    """A running set of Tabletop processes."""

    # Where each process listens (`make run`); None: any free port, as the tests want.
    layout: ports.Layout | None = None
    games: tuple[str, ...] = ()
    matchmakers: int = 1
    # Empty: start the embedded server on data_dir; then this is its admin URL.
    redis_url: str = field(default="", repr=False)  # it carries a password
    workdir: pathlib.Path = field(default_factory=lambda: pathlib.Path(tempfile.mkdtemp(prefix="tabletop-")))
    # What outlives the processes: the embedded server's data and passwords. A data
    # dir that is given is never removed; the temporary one made by default is, at stop.
    data_dir: pathlib.Path = field(default_factory=lambda: _temporary_data_dir())
    extra_env: dict[str, str] = field(default_factory=dict)
    # The deployment shape, by its name in services/common/config.py SHAPES: "services" (the
    # reference: match, each game's rules, dice and deck in processes of their own),
    # "rules-local", "match-local" (rules, dice and deck inside the match process) or
    # "inprocess" (the gateway runs the match app itself, so no socket lies between a
    # player's action and the store; a match process then runs only for the matchmakers,
    # and neither takes write leases: two writers of one match).
    shape: str = "services"
    # Without a redis_url: an embedded Redis Cluster of this many masters (kept in the
    # data dir like the single server) instead of one server; 0: the single server.
    cluster_nodes: int = 0
    # Whether the stack's processes call its internal services (match, rules, dice, deck)
    # over Unix domain sockets, as processes on one host may, rather than TCP loopback.
    # The same mutual TLS either way; tests and tools still reach every process by its port.
    unix_sockets: bool = True
    procs: dict[str, Proc] = field(default_factory=dict)
    _redis: redis_server.RedisProcess | None = None
    _cluster: redis_server.RedisCluster | None = None
    _pki_ready: bool = False

    @property
    def embedded(self) -> bool:
        """True when this stack runs its own embedded server (no external REDIS_URL)."""
        return self._redis is not None

    @property
    def redis(self) -> redis_server.RedisProcess:
        """The embedded server (fault tests kill and restart it); absent with an external REDIS_URL.
        On an embedded cluster: its first node."""
        if self._redis is None:
            raise RuntimeError("this stack uses an external REDIS_URL")
        return self._redis

    @property
    def redis_nodes(self) -> list[redis_server.RedisProcess]:
        """Every embedded server: the one, or each node of the embedded cluster."""
        if self._cluster is not None:
            return list(self._cluster.nodes)
        return [self._redis] if self._redis is not None else []

    @property
    def gateway_addr(self) -> str:
        return f"127.0.0.1:{self.procs['gateway'].port}"

    def addr(self, name: str) -> str:
        return f"127.0.0.1:{self.procs[name].port}"

    def internal_addr(self, name: str) -> str:
        """Where the stack's own processes call `name`: its Unix socket if it has one, else its port."""
        proc = self.procs.get(name)
        return f"unix:{proc.socket}" if proc is not None and proc.socket is not None else self.addr(name)

    @property
    def pki_dir(self) -> pathlib.Path:
        """The stack's CA and every identity's credentials, created on first use and kept."""
        if not self._pki_ready:
            pki.ensure(self.data_dir / "pki")
            self._pki_ready = True
        return self.data_dir / "pki"

    def credentials(self, identity: str) -> tls.Material:
        """The key, certificate and CA of a platform identity (tests, tools)."""
        found = pki.files(self.pki_dir, identity)
        return tls.Material.read(found.ca, found.cert, found.key)

    def channel(self, name: str, as_identity: str = "") -> grpc.Channel:
        """A mutual-TLS channel to process `name`, as `as_identity` (default: the process's own)."""
        target = IDENTITY[self.procs[name].module]
        return tls.channel(self.addr(name), self.credentials(as_identity or target), target)

    def __post_init__(self) -> None:
        config.shape_named(self.shape)  # a name no shape has is refused here, before anything starts

    def start(self) -> Stack:
        extra = _extra_games({**os.environ, **self.extra_env})
        for name, package in extra.items():
            add_package(name, package)
        # This stack's games: the built-in ones and its own extras, not every game an
        # earlier stack of this process registered (its processes would not know them).
        self.games = self.games or tuple(g for g in available() if g in GAMES or g in extra)
        if not self.redis_url and self.cluster_nodes:
            wanted = self.layout.cluster_ports(self.cluster_nodes) if self.layout else None
            self._cluster = redis_server.start_cluster(self.cluster_nodes, data_dir=self.data_dir, ports=wanted)
            self._redis = self._cluster.nodes[0]
            self.redis_url = self._redis.url
            # Every process talks to it as a cluster (any node; the client learns the rest).
            self.extra_env = {**self.extra_env, "REDIS_CLUSTER": "1"}
        elif not self.redis_url:
            port = self.layout.port("redis") if self.layout else None
            self._redis = redis_server.start(data_dir=self.data_dir, port=port)
            self.redis_url = self._redis.url
        chosen = config.shape_named(self.shape)
        if chosen.dice == APART:
            self._launch("dice", "services.dice", {})
        if chosen.deck == APART:
            self._launch("deck", "services.deck", {"TABLETOP_DICE_ADDR": self.internal_addr("dice")})
        if chosen.rules == APART:
            # The rules dial the dice and the deck to resolve chance under the match's grants.
            chance = {f"TABLETOP_{c.upper()}_ADDR": self.internal_addr(c) for c in ("dice", "deck")}
            for index, game in enumerate(self.games):
                self._launch(f"rules-{game}", "services.rules", {"TABLETOP_GAME": game, **chance}, index=index)
        if not self.embeds_match:
            self._launch("match", "services.match", self._core_env())
        elif self.matchmakers > 0:
            self._launch("match", "services.match", {**self._core_env(), "TABLETOP_MATCH_LEASE_MS": "0"})
        # Matchmakers before the gateway: the gateway is told every replica's address.
        for replica in range(self.matchmakers):
            self._launch_matchmaker(replica)
        # The edge relays browsers' calls with their addresses, which the gateway keys its
        # per-caller limits by (TABLETOP_TRUST_FORWARDED: only what listens on loopback here).
        gateway_env = {**self._core_env(), **self._matchmaker_env(), **self._token_env()}
        gateway_env["TABLETOP_MATCH_TRANSPORT"] = LOCAL if self.embeds_match else APART
        if self.embeds_match and self.matchmakers > 0:
            # Two writers of the same matches (the gateway's app, and the match process the
            # matchmakers' bots play through): a lease would make each switch wait for it.
            gateway_env["TABLETOP_MATCH_LEASE_MS"] = "0"
        self._launch("gateway", "gateway", {**gateway_env, "TABLETOP_TRUST_FORWARDED": "1"})
        self._launch("edge", "gateway.edge", {"TABLETOP_GATEWAY_ADDR": self.gateway_addr})
        return self

    @property
    def embeds_match(self) -> bool:
        """Whether the gateway runs the match app itself (the "inprocess" shape)."""
        return config.shape_named(self.shape).match == LOCAL

    @property
    def edge_url(self) -> str:
        """The HTTP edge (Connect, gRPC-Web, the web table)."""
        return f"http://127.0.0.1:{self.procs['edge'].port}"

    def _token_env(self) -> dict[str, str]:
        """The gateway's signing keys: the operator's if configured, else a ring this
        launcher makes once in its directory (mode 0600) and reuses on every start."""
        configured = {**os.environ, **self.extra_env}
        if configured.get("TABLETOP_TOKEN_KEYS") or configured.get("TABLETOP_TOKEN_KEYS_FILE"):
            return {}
        keyring.create_file(self.token_keys_path)
        return {"TABLETOP_TOKEN_KEYS_FILE": str(self.token_keys_path)}

    @property
    def token_keys_path(self) -> pathlib.Path:
        """Where the launcher keeps the gateway's key ring when the operator gives none."""
        return self.data_dir / "keys" / "token-keys.json"

    def _matchmaker_env(self) -> dict[str, str]:
        addrs = [self.addr(n) for n in self.procs if n == "matchmaker" or n.startswith("matchmaker-")]
        if not addrs:
            return {}
        # A gRPC target listing every replica: the channel fails over when one goes away.
        return {"TABLETOP_MATCHMAKER_ADDR": addrs[0] if len(addrs) == 1 else "ipv4:" + ",".join(addrs)}

    def _core_env(self) -> dict[str, str]:
        """Where the match's rules, dice and deck are, as the shape puts them: in process, or
        the addresses of their processes."""
        chosen = config.shape_named(self.shape)
        env: dict[str, str] = {}
        if chosen.rules == LOCAL:
            env["TABLETOP_RULES_TRANSPORT"] = LOCAL
        else:
            env["TABLETOP_RULES_ADDRS"] = ",".join(f"{g}={self.internal_addr('rules-' + g)}" for g in self.games)
        for contract in ("dice", "deck"):
            if getattr(chosen, contract) == LOCAL:
                env[f"TABLETOP_{contract.upper()}_TRANSPORT"] = LOCAL
            else:
                env[f"TABLETOP_{contract.upper()}_ADDR"] = self.internal_addr(contract)
        if "match" in self.procs:
            env["TABLETOP_MATCH_ADDR"] = self.internal_addr("match")
        return env

    def _launch_matchmaker(self, replica: int) -> None:
        if not (ROOT / "services" / "matchmaker" / "__main__.py").exists():
            return
        name = "matchmaker" if replica == 0 else f"matchmaker-{replica}"
        env = {**self._core_env(), "TABLETOP_REPLICA_NAME": name}
        self._launch(name, "services.matchmaker", env, index=replica)

    def _launch(self, name: str, module: str, env: dict[str, str], index: int = 0) -> Proc:
        kind = name.split("-", 1)[0]
        # The layout's ports (metrics beside them), or any free port for each.
        port = self.layout.port(kind, index) if self.layout else 0
        metrics = self.layout.metrics_port(kind, index) if self.layout else 0
        proc = Proc(name, module, {**env, "TABLETOP_PORT": str(port), "TABLETOP_METRICS_PORT": str(metrics),
                                   "TABLETOP_HEALTH_PORT": "0"})
        if self.unix_sockets and kind in INTERNAL:
            proc.socket = self.workdir / f"{name}.sock"
            proc.env["TABLETOP_UNIX_SOCKET"] = str(proc.socket)
        self.procs[name] = proc
        self._spawn(proc)
        return proc

    def _spawn(self, proc: Proc) -> None:
        ready = self.workdir / f"{proc.name}.port"
        ready.unlink(missing_ok=True)
        proc.log_path = self.workdir / f"{proc.name}.log"
        env = {
            **os.environ,
            **self.extra_env,
            **proc.env,
            "TABLETOP_READY_FILE": str(ready),
            "PYTHONUNBUFFERED": "1",
            # The child asks the kernel to stop it when this launcher dies (lifeline.py).
            "TABLETOP_PARENT_PID": str(os.getpid()),
            **self._tls_env(proc.module),
        }
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "gen"), env.get("PYTHONPATH", "")])
        env["REDIS_URL"] = self._redis_url_for(proc.name, env)
        if env["REDIS_URL"] and not urllib.parse.urlsplit(env["REDIS_URL"]).password:
            # An external server without users, handed to this launcher on purpose
            # (REDIS_URL for the tests or `make run`): the explicit local mode.
            env.setdefault("TABLETOP_REDIS_INSECURE", "1")
        with open(proc.log_path, "ab") as log:
            proc.process = subprocess.Popen(
                [sys.executable, "-m", proc.module],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
        proc.port = self._wait_ready(proc, ready)

    def _tls_env(self, module: str) -> dict[str, str]:
        """A platform process's own credentials; the edge has none (it calls the public port)."""
        if module not in IDENTITY:
            return {}
        creds = pki.files(self.pki_dir, IDENTITY[module])
        return {
            "TABLETOP_TLS_CA": str(creds.ca),
            "TABLETOP_TLS_CERT": str(creds.cert),
            "TABLETOP_TLS_KEY": str(creds.key),
        }

    def _redis_url_for(self, name: str, env: Mapping[str, str]) -> str:
        """Each process authenticates as the user of the roles it plays (its own, and those
        it runs in process); rules processes use no Redis at all. On a server this launcher
        did not start (an operator's REDIS_URL), every process gets that URL."""
        server = self._redis or redis_server.known(self.redis_url)
        if server is None:
            return self.redis_url
        user = redis_user(name, env)
        return server.url_for(user) if user else ""

    def _wait_ready(self, proc: Proc, ready: pathlib.Path, timeout: float = 60.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert proc.process is not None
            if proc.process.poll() is not None:
                raise ProcessFailed(proc, f"{proc.name} exited early; see {proc.log_path}:\n{self.tail(proc.name)}")
            text = ready.read_text().split() if ready.exists() else []
            if len(text) >= 2:  # "<port> <metrics port> [<health port>]" (the edge has no gRPC health)
                port, proc.metrics_port = int(text[0]), int(text[1])
                proc.health_port = int(text[2]) if len(text) > 2 else -1
                if self._healthy(proc, port, deadline - time.monotonic()):
                    return port
            time.sleep(0.05)  # waiting for a child to write its ready file; nothing to block on
        raise ProcessFailed(proc, f"{proc.name} did not become ready; see {proc.log_path}")

    def _healthy(self, proc: Proc, port: int, timeout: float) -> bool:
        if proc.module == "gateway.edge":
            return _http_serving(f"http://127.0.0.1:{port}/healthz", timeout)
        addr, identity = f"127.0.0.1:{port}", IDENTITY[proc.module]
        if identity == "gateway":  # the one plaintext, client-facing port
            return _serving(grpc.insecure_channel(addr), timeout)
        # Internal ports admit only platform certificates: ask as the process itself.
        return _serving(tls.channel(addr, self.credentials(identity), identity), timeout)

    def tail(self, name: str, lines: int = 30) -> str:
        path = self.procs[name].log_path
        if path is None or not path.exists():
            return ""
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])

    def kill(self, name: str) -> None:
        """SIGKILL one process (fault tests): no chance to clean up."""
        proc = self.procs[name]
        if proc.process is not None and proc.process.poll() is None:
            proc.process.kill()
            proc.process.wait()

    def restart(self, name: str) -> None:
        """Start a stopped process again on the same port."""
        proc = self.procs[name]
        proc.env["TABLETOP_PORT"] = str(proc.port)
        self._spawn(proc)

    def stop(self) -> None:
        for proc in reversed(list(self.procs.values())):
            if proc.process is not None and proc.process.poll() is None:
                proc.process.send_signal(signal.SIGTERM)
                # A process a fault test paused (SIGSTOP) must wake to handle it.
                proc.process.send_signal(signal.SIGCONT)
        for proc in reversed(list(self.procs.values())):
            if proc.process is not None:
                try:
                    proc.process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.process.kill()
                    proc.process.wait()
        for node in self.redis_nodes:
            node.stop()
        self._redis, self._cluster = None, None
        if self.data_dir in _TEMPORARY_DATA_DIRS:
            _TEMPORARY_DATA_DIRS.discard(self.data_dir)
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self) -> Stack:
        """The started stack; a start that fails half way stops what it started."""
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()


# Data dirs made by default for a Stack: nobody else knows them, so its stop removes them.
_TEMPORARY_DATA_DIRS: set[pathlib.Path] = set()


def _temporary_data_dir() -> pathlib.Path:
    path = pathlib.Path(tempfile.mkdtemp(prefix="tabletop-data-"))
    _TEMPORARY_DATA_DIRS.add(path)
    return path


def redis_user(process_name: str, env: Mapping[str, str]) -> str | None:
    """The ACL user of a launched process started with `env` (matchmaker replicas share
    one; a process that runs other services' apps in process plays their roles too), or
    None for a process without Redis."""
    service = process_name.split("-", 1)[0]
    if service not in redis_credentials.SERVICE_USERS:
        return None
    return redis_credentials.user_of(redis_credentials.hosted_roles(service, env))


def _serving(channel: grpc.Channel, timeout: float) -> bool:
    with channel, contextlib.suppress(grpc.RpcError):
        reply = health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service=""), timeout=max(0.5, timeout), wait_for_ready=True
        )
        return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)
    return False


def _http_serving(url: str, timeout: float) -> bool:
    with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=max(0.5, timeout)) as answer:
        return bool(answer.status == 200)
    return False


def _extra_games(env: dict[str, str]) -> dict[str, str]:
    raw = env.get("TABLETOP_EXTRA_GAMES", "")
    return dict(item.split("=", 1) for item in raw.split(",") if "=" in item)
