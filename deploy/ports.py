"""`make run`'s ports: where each process listens, which of them are taken, and by what.

The layout: every port is the base (TABLETOP_PORT_BASE, default 20050) plus the
process's offset, its metrics port 1000 above that, so the whole stack sits in
20050-21170, below Linux's default ephemeral range (32768-60999,
/proc/sys/net/ipv4/ip_local_port_range), where an outgoing connection of any
program may hold a port for a while (and its TIME-WAIT a minute after). The
two public ports keep the numbers clients are documented to dial: the gateway
50051, the edge 8080. TABLETOP_<NAME>_PORT moves one process (REDIS, GATEWAY,
EDGE, MATCH, DICE, DECK, MATCHMAKER, RULES: the first game's; matchmaker
replica r at +100 r, game i at +i).

A port another program holds would make one service exit at start with a bind
error deep in its log; the launcher checks them all first and names each busy
port with what holds it (from /proc: the sockets on that local port, then the
process that has them open), when this user may see it.
"""

from __future__ import annotations

import pathlib
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

PROC = pathlib.Path("/proc")
DEFAULT_BASE = 20050
# Offsets from the base; metrics ports are 1000 above (the embedded server has none).
OFFSETS = {"redis": 0, "gateway": 1, "match": 2, "dice": 3, "deck": 4, "matchmaker": 5, "edge": 8, "rules": 10}
CLUSTER_OFFSET = 20  # embedded cluster node i: base + 20 + i (its bus port 10000 above)
METRICS_OFFSET = 1000
REPLICA_STEP = 100
# Ports clients are told to dial (docs/clients.md, docs/examples): kept unless moved.
PUBLIC_DEFAULTS = {"gateway": 50051, "edge": 8080}
# TCP states of /proc/net/tcp (include/net/tcp_states.h) an operator may meet on a busy port.
STATES = {"01": "ESTABLISHED", "06": "TIME-WAIT", "08": "CLOSE-WAIT", "0A": "LISTEN"}
LISTEN = "0A"


class BadPort(ValueError):
    """A port setting that is no port number."""


@dataclass(frozen=True)
class Layout:
    """Where `make run` puts each process, from the base and the per-process overrides."""

    base: int = DEFAULT_BASE
    overrides: Mapping[str, int] | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Layout:
        base = _port("TABLETOP_PORT_BASE", env.get("TABLETOP_PORT_BASE", "") or str(DEFAULT_BASE))
        overrides = {
            name: _port(f"TABLETOP_{name.upper()}_PORT", env[f"TABLETOP_{name.upper()}_PORT"])
            for name in OFFSETS
            if env.get(f"TABLETOP_{name.upper()}_PORT")
        }
        return cls(base, overrides)

    def port(self, name: str, index: int = 0) -> int:
        """The port of process `name` (`index`: the game's of rules, the replica's of a matchmaker)."""
        kind, step = _kind(name, index)
        overrides = self.overrides or {}
        if kind in overrides:
            return overrides[kind] + step
        return PUBLIC_DEFAULTS.get(kind, self.base + OFFSETS[kind]) + step

    def metrics_port(self, name: str, index: int = 0) -> int:
        """Always base-derived: a public port moved elsewhere keeps its metrics beside the rest."""
        kind, step = _kind(name, index)
        return self.base + METRICS_OFFSET + OFFSETS[kind] + step

    def cluster_ports(self, nodes: int) -> list[int]:
        return [self.base + CLUSTER_OFFSET + i for i in range(nodes)]


def _kind(name: str, index: int) -> tuple[str, int]:
    if name == "matchmaker":
        return name, REPLICA_STEP * index
    return name, index


def _port(setting: str, raw: str) -> int:
    try:
        port = int(raw)
    except ValueError:
        raise BadPort(f"{setting}={raw!r} is not a port number") from None
    if not 0 < port < 65536:
        raise BadPort(f"{setting}={port} is not a port number (1-65535)")
    return port


def ephemeral_range() -> tuple[int, int]:
    """The kernel's range for outgoing connections' local ports (Linux's default when unreadable)."""
    try:
        low, high = (PROC / "sys" / "net" / "ipv4" / "ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def busy(ports: Iterable[int]) -> dict[int, str]:
    """Each port of `ports` that cannot be bound on 127.0.0.1, with what holds it ("" if unknown).

    The probe binds as the services do (SO_REUSEADDR: grpc, valkey, uvicorn and the
    metrics server all set it), so the TIME-WAIT of an earlier run's own connections
    does not count as taken, exactly as it does not stop the services.
    """
    taken = {}
    for port in ports:
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                taken[port] = holder(port)
    return taken


def holder(port: int) -> str:
    """What holds `port`: "pid N: command line" of the process with a socket on it, else the
    sockets' TCP states (a TIME-WAIT has no process), or "" if nothing can be seen."""
    sockets = _sockets_on(port)
    owners = _owners({inode for inode, _ in sockets if inode != "0"})
    listening = [inode for inode, state in sockets if state == LISTEN]
    for inode in [*listening, *(inode for inode, _ in sockets)]:
        if inode in owners:
            pid, command = owners[inode]
            return f"pid {pid}: {command[:120]}"
    states = sorted({STATES.get(state, state) for _, state in sockets})
    if not states:
        return ""
    unseen = "another user's process" if any(inode != "0" for inode, _ in sockets) else "no process"
    return f"{len(sockets)} connection(s) in {'/'.join(states)} ({unseen})"


def _sockets_on(port: int) -> list[tuple[str, str]]:
    """(inode, state) of every TCP socket whose local port is `port`."""
    found = []
    for table in ("tcp", "tcp6"):
        path = PROC / "net" / table
        try:
            lines = path.read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if int(local.rsplit(":", 1)[1], 16) == port:
                found.append((inode, state))
    return found


def _owners(inodes: set[str]) -> dict[str, tuple[str, str]]:
    """inode -> (pid, command line) for the sockets among `inodes` this user may see."""
    owners: dict[str, tuple[str, str]] = {}
    if not inodes:
        return owners
    for process in PROC.iterdir():
        if not process.name.isdigit():
            continue
        try:
            for fd in (process / "fd").iterdir():
                target = str(fd.readlink())
                if target.startswith("socket:[") and target[8:-1] in inodes:
                    command = (process / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                    owners.setdefault(target[8:-1], (process.name, command.strip()))
        except OSError:
            continue  # gone meanwhile, or not ours to look into
    return owners
