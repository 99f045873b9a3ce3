"""`make run`: the whole stack on this machine, every service its own process.

With REDIS_URL unset an embedded Redis-compatible server is started on the
data directory (TABLETOP_DATA_DIR, default `<repo>/.data`), which keeps every
match, ticket, rating and password across runs. Ctrl-C stops everything
cleanly. MATCHMAKERS=N starts N matchmaker replicas. TABLETOP_EMBEDDED_CLUSTER=N
(N >= 3) runs the embedded server as a Redis Cluster of N masters instead, kept
in the data directory too (`cluster/`).
"""

from __future__ import annotations

import os
import pathlib
import signal
import sys
import threading

from deploy import ports
from deploy.stack import FIXED_PORTS, ROOT, RULES_BASE_PORT, Stack
from services.common.redis_credentials import masked
from services.games.registry import GAMES


def main() -> int:
    workdir = ROOT / ".run"
    workdir.mkdir(exist_ok=True)
    stack = Stack(
        fixed_ports=True,
        matchmakers=int(os.environ.get("MATCHMAKERS", "1")),
        redis_url=os.environ.get("REDIS_URL", ""),
        workdir=pathlib.Path(workdir),
        data_dir=data_dir(),
        cluster_nodes=int(os.environ.get("TABLETOP_EMBEDDED_CLUSTER", "0") or 0),
    )
    taken = ports.busy(_fixed_ports(stack))
    if taken:
        for port, by in sorted(taken.items()):
            print(f"port {port} is already in use{f' by {by}' if by else ''}", file=sys.stderr)
        print("stop what holds it (an earlier `make run`?) and try again", file=sys.stderr)
        return 1
    print(f"data directory: {stack.data_dir}", flush=True)
    print("starting Tabletop ...", flush=True)
    try:
        stack.start()
    except BaseException:
        stack.stop()
        raise
    for name, proc in stack.procs.items():
        print(f"  {name:<20} 127.0.0.1:{proc.port}   metrics :{proc.metrics_port}/metrics   log: {proc.log_path}")
    where = f"   data: {stack.redis.directory}" if stack.embedded else ""
    kind = f"cluster of {len(stack.redis_nodes)} " if len(stack.redis_nodes) > 1 else ""
    print(f"  redis {kind:<14} {masked(stack.redis_url)}{where}")
    # Internal ports speak mutual TLS only; tools that dial them use these credentials.
    print(f"  certificates         {stack.pki_dir}   (internal services: mutual TLS)")
    print(f"\nTabletop gateway listening on {stack.gateway_addr} (gRPC)")
    print(f"Tabletop edge listening on {stack.edge_url} (Connect, gRPC-Web, the web table at /)")
    print("try:  .venv/bin/tabletop bots --game la_isla --players 3      (Ctrl-C stops the stack)", flush=True)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        while not stop.wait(1.0):
            _revive_redis(stack)
            for name, proc in stack.procs.items():
                if proc.process is not None and proc.process.poll() is not None:
                    print(f"{name} exited ({proc.process.returncode}); see {proc.log_path}", flush=True)
                    stop.set()
    finally:
        print("\nstopping ...", flush=True)
        stack.stop()
        print("stopped")
    return 0


def _fixed_ports(stack: Stack) -> list[int]:
    """Every port `make run` binds: each service's, its metrics port (+1000), the rules ports."""
    embedded_single = not stack.redis_url and not stack.cluster_nodes
    wanted = {port for name, port in FIXED_PORTS.items() if name != "redis" or embedded_single}
    wanted |= {FIXED_PORTS["matchmaker"] + 100 * replica for replica in range(stack.matchmakers)}
    wanted |= {RULES_BASE_PORT + index for index in range(len(GAMES))}
    return sorted(wanted | {port + 1000 for port in wanted if port != FIXED_PORTS["redis"]})


def _revive_redis(stack: Stack) -> None:
    """Start a dead embedded server (or cluster node) again on its port and data: every process
    reconnects by itself."""
    for node in stack.redis_nodes:
        if not node.running:
            print(f"the embedded server exited; restarting it on {node.directory}", flush=True)
            node.restart()
            print("the embedded server is back", flush=True)


def data_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("TABLETOP_DATA_DIR") or ROOT / ".data").resolve()


if __name__ == "__main__":
    sys.exit(main())
