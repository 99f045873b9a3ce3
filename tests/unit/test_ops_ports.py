"""`make run`'s ports: outside the ephemeral range, moved by settings, and a busy one named
with what holds it, in one line, without a traceback."""

from __future__ import annotations

import os
import pathlib
import random
import socket
import subprocess
import sys
import time
from concurrent import futures

import grpc
import pytest

from deploy import local, ports
from deploy.stack import Proc, ProcessFailed, Stack
from ops import admin

ROOT = pathlib.Path(__file__).resolve().parents[2]


def stack_for(env: dict[str, str], tmp_path: pathlib.Path) -> Stack:
    return local.configured({"TABLETOP_DATA_DIR": str(tmp_path / "data"), "TABLETOP_RUN_DIR": str(tmp_path / "run"),
                             **env})


def test_every_default_port_lies_below_the_kernels_ephemeral_range(tmp_path: pathlib.Path) -> None:
    low, high = ports.ephemeral_range()
    for cluster in ("0", "3"):
        stack = stack_for({"MATCHMAKERS": "2", "TABLETOP_EMBEDDED_CLUSTER": cluster}, tmp_path)
        wanted = local.wanted_ports(stack)
        inside = {port: name for port, name in wanted.items() if low <= port <= high}
        # The gateway keeps the port its documented clients dial (docs/clients.md, docs/examples).
        assert inside == {50051: "gateway"}, inside
        assert len(wanted) == len(set(wanted))
        assert all(port < low for port in wanted if port != 50051)


def test_one_base_moves_every_port_and_each_process_may_be_moved_alone(tmp_path: pathlib.Path) -> None:
    layout = ports.Layout.from_env({"TABLETOP_PORT_BASE": "24000", "TABLETOP_GATEWAY_PORT": "24001",
                                    "TABLETOP_MATCH_PORT": "25555"})
    assert layout.port("redis") == 24000 and layout.port("gateway") == 24001
    assert layout.port("match") == 25555 and layout.metrics_port("match") == 25002
    assert layout.port("rules", 2) == 24012 and layout.port("matchmaker", 1) == 24105
    assert layout.port("edge") == 8080 and layout.cluster_ports(3) == [24020, 24021, 24022]
    stack = stack_for({"TABLETOP_PORT_BASE": "24000", "TABLETOP_EDGE_PORT": "24080"}, tmp_path)
    assert {24000, 24080, 50051} <= set(local.wanted_ports(stack))
    with pytest.raises(ports.BadPort, match="TABLETOP_DICE_PORT"):
        ports.Layout.from_env({"TABLETOP_DICE_PORT": "http"})


def test_a_listening_holder_is_named_by_pid_and_command() -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        found = ports.busy([port])
    assert found[port].startswith(f"pid {os.getpid()}: ")
    assert ports.busy([port]) == {}


def _time_wait_of_a_listener() -> int:
    """A port whose listener (SO_REUSEADDR, as every service binds) closed first: TIME-WAIT left."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    client = socket.create_connection(("127.0.0.1", port))
    accepted, _ = listener.accept()
    accepted.close()  # the server side closes first: its end waits in TIME-WAIT
    listener.close()
    client.recv(1)
    client.close()
    deadline = time.monotonic() + 5
    while "TIME-WAIT" not in ports.holder(port) and time.monotonic() < deadline:
        time.sleep(0.05)
    return port


def test_time_wait_of_an_earlier_run_does_not_block_a_start() -> None:
    port = _time_wait_of_a_listener()
    assert "TIME-WAIT" in ports.holder(port)
    assert ports.busy([port]) == {}
    from bootstrap.edge import listening_socket

    listening_socket("127.0.0.1", port).close()  # the edge binds it
    grpc_server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
    assert grpc_server.add_insecure_port(f"127.0.0.1:{port}") == port  # and so do the services
    grpc_server.stop(None)


def test_a_port_taken_while_starting_is_one_line_naming_its_holder(tmp_path: pathlib.Path) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        proc = Proc("rules-la_isla", "services.rules", {"TABLETOP_PORT": str(port), "TABLETOP_METRICS_PORT": "0"},
                    log_path=tmp_path / "rules.log")
        said = local.why(ProcessFailed(proc, "exited early"))
    assert said == f"rules-la_isla could not listen: port {port} is already in use by pid {os.getpid()}: " + \
        said.split(f"pid {os.getpid()}: ", 1)[1]
    (tmp_path / "rules.log").write_text("one\nRuntimeError: it broke\n")
    assert local.why(ProcessFailed(proc, "exited early")).endswith(": RuntimeError: it broke")


def _free_base() -> int:
    for _ in range(50):
        base = random.randrange(21_000, 29_000, 200)
        if not ports.busy([base, base + 2, base + 1002]):
            return base
    raise RuntimeError("no free base")


def test_make_run_with_a_port_taken_says_which_and_by_what_and_exits(tmp_path: pathlib.Path) -> None:
    base = _free_base()
    with socket.socket() as held:
        held.bind(("127.0.0.1", base + 2))  # the match service's
        held.listen()
        env = {**os.environ, "TABLETOP_PORT_BASE": str(base), "TABLETOP_GATEWAY_PORT": str(base + 1),
               "TABLETOP_EDGE_PORT": str(base + 8), "TABLETOP_DATA_DIR": str(tmp_path / "data"),
               "TABLETOP_RUN_DIR": str(tmp_path / "run")}
        env.pop("REDIS_URL", None)
        done = subprocess.run([sys.executable, "-m", "deploy.local"], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=60)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr + done.stdout
    lines = done.stderr.strip().splitlines()
    assert lines[0] == f"tabletop: port {base + 2} (match) is already in use by pid {os.getpid()}: " + \
        lines[0].split(f"pid {os.getpid()}: ", 1)[1]
    assert "TABLETOP_PORT_BASE" in lines[-1]


def test_idle_time_reads_like_a_duration() -> None:
    assert [admin.idle_text(s) for s in (5, 120, 3 * 3600 + 300, 3 * 86400)] == ["5 s", "2 min", "3 h 05 min",
                                                                                "3 d 0 h"]
