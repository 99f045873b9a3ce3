"""`make run`: the whole stack on this machine, every service its own process.

With REDIS_URL unset an embedded Redis-compatible server is started on the
data directory (TABLETOP_DATA_DIR, default `<repo>/.data`), which keeps every
match, ticket, rating and password across runs. Ctrl-C stops everything
cleanly: the services drain first, the embedded server stops last.
MATCHMAKERS=N starts N matchmaker replicas. TABLETOP_EMBEDDED_CLUSTER=N (N >= 3)
runs the embedded server as a Redis Cluster of N masters instead, kept in the
data directory too (`cluster/`, beside the single server's `redis/`: each mode
has its own data). Ports: deploy/ports.py (TABLETOP_PORT_BASE and
TABLETOP_<NAME>_PORT). Where everything listens is written to the data
directory's stack.json, where `tabletop` and `tabletop admin` find it.
Logs go to TABLETOP_RUN_DIR (default `<repo>/.run`).
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import sys
import threading
from collections.abc import Mapping

from cli.stack_record import STACK_RECORD
from deploy import ports
from deploy.stack import ROOT, ProcessFailed, Stack
from services.common.redis.credentials import masked
from services.games.registry import GAMES

BUS_OFFSET = 10_000  # a cluster node's bus port, above its own


def main() -> int:
    try:
        stack = configured(os.environ)
    except ValueError as bad:  # ports.BadPort too
        print(f"tabletop: {bad}", file=sys.stderr)
        return 2
    taken = ports.busy(wanted_ports(stack))
    if taken:
        names = wanted_ports(stack)
        for port, by in sorted(taken.items()):
            print(f"tabletop: port {port} ({names[port]}) is already in use{f' by {by}' if by else ''}",
                  file=sys.stderr)
        print("stop what holds it, or move the stack: TABLETOP_PORT_BASE=N (or TABLETOP_<NAME>_PORT)",
              file=sys.stderr)
        return 1
    print(f"data directory: {stack.data_dir} ({mode(stack)} mode)", flush=True)
    print("starting Tabletop ...", flush=True)
    if not start(stack):
        return 1
    write_record(stack)
    describe(stack)
    return serve(stack)


def configured(env: Mapping[str, str]) -> Stack:
    """The stack `make run` starts, from the environment (ValueError for a bad setting)."""
    workdir = pathlib.Path(env.get("TABLETOP_RUN_DIR") or ROOT / ".run")
    workdir.mkdir(parents=True, exist_ok=True)
    return Stack(
        layout=ports.Layout.from_env(env),
        matchmakers=int(env.get("MATCHMAKERS", "1")),
        redis_url=env.get("REDIS_URL", ""),
        workdir=workdir,
        data_dir=data_dir(env),
        cluster_nodes=int(env.get("TABLETOP_EMBEDDED_CLUSTER", "0") or 0),
    )


def start(stack: Stack) -> bool:
    """Start the stack; on failure stop what started and say why in one line (no traceback)."""
    try:
        stack.start()
        return True
    except ProcessFailed as failed:
        stack.stop()
        print(f"tabletop: {why(failed)}", file=sys.stderr)
    except KeyboardInterrupt:
        stack.stop()
        print("stopped", file=sys.stderr)
    except (RuntimeError, OSError) as failed:  # the embedded server's start, a subprocess
        stack.stop()
        first = str(failed).strip().splitlines()[0] if str(failed).strip() else type(failed).__name__
        print(f"tabletop: could not start the embedded server: {first}", file=sys.stderr)
    return False


def why(failed: ProcessFailed) -> str:
    """One line: the port another program took meanwhile, or the process and its log."""
    name, log = failed.proc.name, failed.proc.log_path
    for port, by in sorted(ports.busy(failed.ports).items()):
        return f"{name} could not listen: port {port} is already in use{f' by {by}' if by else ''}"
    last = ""
    if log is not None and log.exists():
        lines = log.read_text(errors="replace").strip().splitlines()
        last = f": {lines[-1][:200]}" if lines else ""
    return f"{name} did not start (its log: {log}){last}"


def serve(stack: Stack) -> int:
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
        print("stopped", flush=True)
    return 0


def describe(stack: Stack) -> None:
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


def mode(stack: Stack) -> str:
    """single or cluster (the embedded server of the data directory), or external (REDIS_URL)."""
    if stack.embedded:
        return "cluster" if len(stack.redis_nodes) > 1 else "single"
    if stack.redis_url:  # before the start, only an operator's URL is set
        return "external"
    return "cluster" if stack.cluster_nodes else "single"


def wanted_ports(stack: Stack) -> dict[int, str]:
    """Every port `make run` binds, with whose it is: each process's, its metrics port, the
    embedded server's (or each cluster node's and its bus port)."""
    layout = stack.layout or ports.Layout()
    names = ["gateway", "match", "dice", "deck", "edge"]
    wanted: dict[int, str] = {}
    for name in names:
        wanted[layout.port(name)] = name
        wanted[layout.metrics_port(name)] = f"{name} metrics"
    for replica in range(stack.matchmakers):
        wanted[layout.port("matchmaker", replica)] = f"matchmaker {replica}"
        wanted[layout.metrics_port("matchmaker", replica)] = f"matchmaker {replica} metrics"
    for index, game in enumerate(GAMES):
        wanted[layout.port("rules", index)] = f"rules of {game}"
        wanted[layout.metrics_port("rules", index)] = f"rules of {game} metrics"
    if not stack.redis_url and stack.cluster_nodes:
        for index, port in enumerate(cluster_ports(stack, layout)):
            wanted[port] = f"cluster node {index}"
            wanted[port + BUS_OFFSET] = f"cluster node {index} bus"
    elif not stack.redis_url:
        wanted[layout.port("redis")] = "embedded server"
    return wanted


def cluster_ports(stack: Stack, layout: ports.Layout) -> list[int]:
    """A kept cluster's ports (it stays where it was made), else where a new one will listen."""
    known_file = stack.data_dir / "cluster" / "ports.json"
    known = json.loads(known_file.read_text()) if known_file.exists() else []
    return [int(p) for p in known] if len(known) == stack.cluster_nodes else layout.cluster_ports(stack.cluster_nodes)


def record(stack: Stack) -> dict[str, object]:
    """Where the running stack listens: what `tabletop` and `tabletop admin` read (no secret)."""
    return {
        "mode": mode(stack),
        "redis_ports": [node.port for node in stack.redis_nodes],
        "gateway": stack.gateway_addr,
        "edge": stack.edge_url,
        "processes": {name: {"port": p.port, "metrics_port": p.metrics_port} for name, p in stack.procs.items()},
        "launcher_pid": os.getpid(),
    }


def write_record(stack: Stack) -> pathlib.Path:
    path = stack.data_dir / STACK_RECORD
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(record(stack), indent=2) + "\n")
    temporary.replace(path)
    return path


def _revive_redis(stack: Stack) -> None:
    """Start a dead embedded server (or cluster node) again on its port and data: every process
    reconnects by itself."""
    for node in stack.redis_nodes:
        if not node.running:
            print(f"the embedded server exited; restarting it on {node.directory}", flush=True)
            node.restart()
            print("the embedded server is back", flush=True)


def data_dir(env: Mapping[str, str] | None = None) -> pathlib.Path:
    env = os.environ if env is None else env
    return pathlib.Path(env.get("TABLETOP_DATA_DIR") or ROOT / ".data").resolve()


if __name__ == "__main__":
    sys.exit(main())
