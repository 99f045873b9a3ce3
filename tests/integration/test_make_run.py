"""`make run` (python -m deploy.local) as an operator runs it, in single and cluster mode:
the CLI and the admin tools find the stack from the data directory alone, idle time counts
from a match's last event, and a Ctrl-C (SIGINT to the terminal's process group) drains
every service before the embedded server stops, with no ERROR in any log."""

from __future__ import annotations

import json
import os
import pathlib
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from deploy import local, ports

pytestmark = pytest.mark.integration
ROOT = pathlib.Path(__file__).resolve().parents[2]
READY = "Tabletop edge listening on"


@dataclass
class Run:
    process: subprocess.Popen[bytes]
    env: dict[str, str]
    out: pathlib.Path
    run_dir: pathlib.Path

    def tabletop(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env=self.env,
                              capture_output=True, text=True, timeout=120)


def _environment(tmp_path: pathlib.Path, cluster: bool) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "TABLETOP_GATEWAY")}
    env |= {"TABLETOP_DATA_DIR": str(tmp_path / "data"), "TABLETOP_RUN_DIR": str(tmp_path / "run"),
            "TABLETOP_HOME": str(tmp_path / "home"), "TABLETOP_EMBEDDED_CLUSTER": "3" if cluster else "0"}
    for _ in range(100):
        base = random.randrange(21_000, 29_000, 50)
        env |= {"TABLETOP_PORT_BASE": str(base), "TABLETOP_GATEWAY_PORT": str(base + 1),
                "TABLETOP_EDGE_PORT": str(base + 8)}
        if not ports.busy(local.wanted_ports(local.configured(env))):
            return env
    raise RuntimeError("no free block of ports")


@pytest.fixture(params=["single", "cluster"])
def run(request: pytest.FixtureRequest, tmp_path: pathlib.Path) -> Iterator[Run]:
    env = _environment(tmp_path, request.param == "cluster")
    out = tmp_path / "make-run.out"
    with open(out, "wb") as sink:
        # A session of its own: its process group stands for the terminal's foreground group.
        process = subprocess.Popen([sys.executable, "-m", "deploy.local"], cwd=ROOT, env=env, stdout=sink,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    started = Run(process, env, out, tmp_path / "run")
    try:
        deadline = time.monotonic() + 180
        while READY not in out.read_text(errors="replace"):
            assert process.poll() is None, out.read_text(errors="replace")
            assert time.monotonic() < deadline, out.read_text(errors="replace")
            time.sleep(0.2)
        yield started
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _ctrl_c(run: Run) -> int:
    os.killpg(run.process.pid, signal.SIGINT)  # what the terminal does at Ctrl-C
    return run.process.wait(timeout=90)


def _errors(run: Run) -> list[str]:
    found = []
    for log in sorted(run.run_dir.glob("*.log")):
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith("{"):
                if json.loads(line).get("level") in ("error", "critical"):
                    found.append(f"{log.name}: {line[:300]}")
            elif "Traceback" in line or " ERROR " in line:
                found.append(f"{log.name}: {line[:300]}")
    return found


def test_the_cli_and_admin_find_the_stack_and_ctrl_c_drains_it_cleanly(run: Run) -> None:
    mode = "cluster" if run.env["TABLETOP_EMBEDDED_CLUSTER"] == "3" else "single"
    record = json.loads((pathlib.Path(run.env["TABLETOP_DATA_DIR"]) / "stack.json").read_text())
    assert record["mode"] == mode and len(record["redis_ports"]) == (3 if mode == "cluster" else 1)
    assert record["gateway"] == f"127.0.0.1:{run.env['TABLETOP_GATEWAY_PORT']}"
    # No --gateway, no TABLETOP_GATEWAY: the CLI reads where the gateway listens from the data directory.
    created = run.tabletop("create", "el_dorado", "--players", "2", "--name", "ana")
    assert created.returncode == 0, created.stderr
    match_id = created.stdout.strip()
    for name in ("ana", "ben"):
        assert run.tabletop("join", match_id, "--name", name).returncode == 0
    started = run.tabletop("start", match_id, "--seat", "0")
    assert started.returncode == 0, started.stderr
    # No --redis-url, no --cluster: the admin tools read the mode and the ports from the data directory.
    logged = run.tabletop("admin", "log", match_id)
    assert logged.returncode == 0, logged.stderr
    assert "tabletop.match.v1.MatchStarted" in logged.stdout
    stuck = run.tabletop("admin", "stuck", "--idle-minutes", "0")
    assert stuck.returncode == 0, stuck.stderr
    row = next(line for line in stuck.stdout.splitlines() if match_id in line)
    assert " s " in row and " min" not in row  # idle for seconds, counted from its last event
    assert "no match being played has been idle for 30 minutes" in run.tabletop(
        "admin", "stuck", "--idle-minutes", "30").stdout
    archive = pathlib.Path(run.env["TABLETOP_HOME"]) / "m.json"
    exported = run.tabletop("admin", "export", match_id, str(archive))
    assert exported.returncode == 0, exported.stderr
    assert json.loads(archive.read_text())["match_id"] == match_id
    assert _ctrl_c(run) == 0
    said = run.out.read_text(errors="replace")
    assert "stopped" in said and "Traceback" not in said
    assert _errors(run) == []
    # The embedded server heard no Ctrl-C: the launcher stopped it (SIGTERM), after the services.
    servers = list(pathlib.Path(run.env["TABLETOP_DATA_DIR"]).rglob("valkey.log"))
    assert len(servers) == (3 if mode == "cluster" else 1)
    for server_log in servers:
        text = server_log.read_text(errors="replace")
        assert "Received SIGINT" not in text and "Received SIGTERM" in text, text[-500:]
    # Stopped: the admin tools say so in one line, no traceback.
    down = run.tabletop("admin", "log", match_id)
    assert down.returncode == 2 and "Traceback" not in down.stderr + down.stdout
    assert "cannot reach the event store" in down.stdout + down.stderr
