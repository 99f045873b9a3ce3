"""The CLI's local files: two commands at once never lose what the other wrote."""

from __future__ import annotations

import os
import pathlib
import socket
import subprocess
import sys

from deploy import ports

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAVE = """
import sys
from cli import main as cli
from cli.api import Seat
for i in range(20):
    cli._save_seat(Seat("m-" + sys.argv[1], i, "token-%s-%d" % (sys.argv[1], i)))
    cli._profile("player-" + sys.argv[1])
"""


def test_commands_at_once_keep_every_seat_token_and_profile(tmp_path: pathlib.Path) -> None:
    env = {**os.environ, "TABLETOP_HOME": str(tmp_path)}
    writers = [subprocess.Popen([sys.executable, "-c", SAVE, str(n)], cwd=ROOT, env=env, stderr=subprocess.PIPE)
               for n in range(6)]
    for writer in writers:
        _, err = writer.communicate(timeout=60)
        assert writer.returncode == 0, err.decode()
    import json

    seats = json.loads((tmp_path / "seats.json").read_text())
    assert {m: len(s) for m, s in seats.items()} == {f"m-{n}": 20 for n in range(6)}
    assert set(json.loads((tmp_path / "players.json").read_text())) == {f"player-{n}" for n in range(6)}
    assert oct((tmp_path / "seats.json").stat().st_mode & 0o777) == "0o600"
    assert not list(tmp_path.glob("*.tmp"))


def test_a_busy_port_is_named_with_what_holds_it() -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        found = ports.busy([port])
    assert list(found) == [port]
    assert found[port].startswith(f"pid {os.getpid()}: ")
    assert ports.busy([port]) == {}  # released: free again


def test_long_runs_report_progress_and_elapsed_time(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import asyncio
    import io

    from rich.console import Console

    from cli import main as cli

    out = io.StringIO()
    monkeypatch.setattr(cli, "notes", Console(file=out, force_terminal=False, soft_wrap=True))
    monkeypatch.setattr(cli, "NOTE_EVERY", 0.05)
    steps = iter(range(1, 100))

    async def slow() -> str:
        await asyncio.sleep(0.3)
        return "done"

    assert asyncio.run(cli._with_progress(lambda: f"{next(steps)} actions", False, slow())) == "done"
    lines = out.getvalue().splitlines()
    assert len(lines) >= 3 and lines[0].startswith("1 actions: 0 s")
    assert [int(line.split()[0]) for line in lines] == list(range(1, len(lines) + 1))
    quiet = io.StringIO()
    monkeypatch.setattr(cli, "notes", Console(file=quiet, force_terminal=False))
    assert asyncio.run(cli._with_progress(lambda: "x", True, slow())) == "done"
    assert quiet.getvalue() == ""  # --json: nothing but the answer


def test_admin_finds_make_runs_embedded_server_where_the_launcher_records_it(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from cli import stack_record
    from deploy import local
    from deploy.stack import Stack
    from ops import admin

    stack = Stack(layout=ports.Layout(base=23050), data_dir=tmp_path, cluster_nodes=3)
    monkeypatch.setattr(local, "record", lambda _: {"mode": "cluster", "redis_ports": [23070, 23071, 23072],
                                                    "gateway": "127.0.0.1:23051"})
    assert local.write_record(stack) == tmp_path / stack_record.STACK_RECORD
    (tmp_path / "redis-passwords.json").write_text('{"admin": "pw"}')
    monkeypatch.setenv("TABLETOP_DATA_DIR", str(tmp_path))
    found = admin.target("", cluster=False)
    assert found.cluster and ":23070" in found.url and "pw" in found.url
    assert stack_record.recorded_gateway() == "127.0.0.1:23051"
