"""The command-line client never leaves its user guessing: it says why, in one line."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

from deploy.stack import Stack

pytestmark = pytest.mark.integration
ROOT = pathlib.Path(__file__).resolve().parents[2]


def tabletop(home: pathlib.Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TABLETOP_HOME": str(home)}
    env.pop("TABLETOP_GATEWAY", None)
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


def test_gateway_may_come_before_the_command(stack: Stack, tmp_path: pathlib.Path) -> None:
    before = tabletop(tmp_path, "--gateway", stack.gateway_addr, "games")
    assert before.returncode == 0, before.stderr
    assert "pig" in before.stdout
    assert "discover  Discover: Lands Unknown  (1-4 players, together against the game)" in before.stdout
    after = tabletop(tmp_path, "games", "--gateway", stack.gateway_addr)
    assert after.stdout == before.stdout


def test_actions_and_act_say_why_a_seat_cannot_act(stack: Stack, tmp_path: pathlib.Path) -> None:
    gateway = ("--gateway", stack.gateway_addr)
    match_id = tabletop(tmp_path, "create", "el_dorado", "--players", "2", "--name", "ana", *gateway).stdout.strip()
    assert tabletop(tmp_path, "join", match_id, "--name", "ana", *gateway).returncode == 0
    listed = tabletop(tmp_path, "actions", match_id, *gateway)
    assert listed.returncode == 0 and listed.stdout == ""
    assert "still in the lobby" in listed.stderr
    refused = tabletop(tmp_path, "act", match_id, "0", *gateway)
    assert refused.returncode == 2
    reason = listed.stderr.split(": ", 1)[1].strip()
    assert refused.stderr.strip().splitlines() == [f"refused: seat 0 cannot act: {reason}"]
    assert tabletop(tmp_path, "join", match_id, "--name", "ben", *gateway).returncode == 0
    seats = json.loads((tmp_path / "seats.json").read_text())[match_id]
    assert set(seats) == {"0", "1"}
    assert tabletop(tmp_path, "start", match_id, "--seat", "0", *gateway).returncode == 0
    mover = next(s for s in (0, 1) if tabletop(tmp_path, "actions", match_id, "--seat", str(s), *gateway).stdout)
    waiting = tabletop(tmp_path, "actions", match_id, "--seat", str(1 - mover), *gateway)
    assert f"not your turn (seat {mover} to move)" in waiting.stderr
    out_of_range = tabletop(tmp_path, "act", match_id, "99", "--seat", str(mover), *gateway)
    assert out_of_range.returncode == 2 and "no action number 99" in out_of_range.stderr
    malformed = tabletop(tmp_path, "act", match_id, "--json", "{not json", "--seat", str(mover), *gateway)
    assert malformed.returncode == 2
    assert len(malformed.stderr.strip().splitlines()) == 1 and "not an action of el_dorado" in malformed.stderr
    assert "Traceback" not in malformed.stderr
    unfinished = tabletop(tmp_path, "verify", match_id, *gateway)
    assert unfinished.returncode == 3 and "has not finished" in unfinished.stderr
    assert "FAILED" not in unfinished.stdout + unfinished.stderr


def test_matches_leave_and_cancel(stack: Stack, tmp_path: pathlib.Path) -> None:
    gateway = ("--gateway", stack.gateway_addr)
    assert "no matches of yours" in tabletop(tmp_path, "matches", *gateway).stderr
    match_id = tabletop(tmp_path, "create", "la_isla", "--players", "3", "--name", "cy", *gateway).stdout.strip()
    assert tabletop(tmp_path, "join", match_id, "--name", "cy", *gateway).returncode == 0
    mine = json.loads(tabletop(tmp_path, "matches", "--json", *gateway).stdout)
    assert [(m["match"]["match_id"], m["match"]["status"], m["seats"]) for m in mine] == \
        [(match_id, "MATCH_STATUS_LOBBY", [0])]
    listed = tabletop(tmp_path, "matches", "--all", "--game", "la_isla", *gateway)
    assert match_id in listed.stdout and "lobby" in listed.stdout
    left = tabletop(tmp_path, "leave", match_id, *gateway)
    assert left.returncode == 0, left.stderr
    assert json.loads((tmp_path / "seats.json").read_text()) == {}
    # This stack runs no matchmaker: the refusal is one line that says so, no traceback.
    unknown = tabletop(tmp_path, "cancel", "no-such-ticket", "--name", "cy", *gateway)
    said = (unknown.stdout + unknown.stderr).strip().splitlines()
    assert unknown.returncode == 1 and said == ["UNAVAILABLE: the matchmaker service is unavailable"]


def test_replay_shows_a_version_as_the_viewer_saw_it(stack: Stack, tmp_path: pathlib.Path) -> None:
    gateway = ("--gateway", stack.gateway_addr)
    match_id = tabletop(tmp_path, "create", "el_dorado", "--players", "2", "--name", "di", *gateway).stdout.strip()
    for name in ("di", "ed"):
        assert tabletop(tmp_path, "join", match_id, "--name", name, *gateway).returncode == 0
    assert tabletop(tmp_path, "start", match_id, "--seat", "0", *gateway).returncode == 0
    now = json.loads(tabletop(tmp_path, "view", match_id, "--seat", "0", "--json", *gateway).stdout)
    version = int(now["match"]["version"])
    mine = json.loads(tabletop(tmp_path, "replay", match_id, "--version", str(version), "--seat", "0", "--json",
                               *gateway).stdout)
    assert mine["view"] == now["view"] and mine["view"]["hand"]  # its own hand, as it saw it
    spectator = tabletop(tmp_path, "replay", match_id, "--version", str(version), *gateway)
    assert spectator.returncode == 0 and "as a spectator saw it" in spectator.stderr
    seen = json.loads(tabletop(tmp_path, "replay", match_id, "--version", str(version), "--json", *gateway).stdout)
    assert not seen["view"].get("hand")  # a spectator sees no hand
    lobby = json.loads(tabletop(tmp_path, "replay", match_id, "--version", "1", "--json", *gateway).stdout)
    assert lobby["match"]["status"] == "MATCH_STATUS_LOBBY"


def test_admin_reads_the_store_and_exports_an_archive_that_verify_and_replay_read_offline(
    stack: Stack, tmp_path: pathlib.Path
) -> None:
    import asyncio

    from tabletop.gateway.v1 import gateway_pb2 as gpb

    from cli import autoplay
    from cli.api import Gateway, to_dict

    async def play() -> tuple[str, str, dict[str, object], int]:
        async with Gateway(stack.gateway_addr) as gateway:
            done = await autoplay.play_match(gateway, "pig", 2, seed=31)
            halfway = await autoplay.play_match(gateway, "pig", 2, seed=32, stop_after=3)
            version = done.summary.version - 3
            seen = await gateway.stub.GetView(gpb.GetViewRequest(match_id=done.match_id, at_version=version),
                                              metadata=done.seats[0].metadata)
            return done.match_id, halfway.match_id, to_dict(seen.view, "pig"), version

    finished, unfinished, seen, version = asyncio.run(play())
    admin = ("--redis-url", stack.redis_url)
    env_games = {"TABLETOP_EXTRA_GAMES": "pig=tests.fixtures.pig"}
    os.environ.update(env_games)
    try:
        archive = tmp_path / "match.json"
        exported = tabletop(tmp_path, "admin", "export", finished, str(archive), *admin)
        assert exported.returncode == 0, exported.stderr
        assert oct(archive.stat().st_mode & 0o777) == "0o600"
        checked = tabletop(tmp_path, "verify", "--file", str(archive), "--json")
        assert checked.returncode == 0 and json.loads(checked.stdout)["ok"] is True
        replayed = tabletop(tmp_path, "replay", "--file", str(archive), "--version", str(version), "--seat", "0",
                            "--json")
        assert replayed.returncode == 0, replayed.stderr
        assert json.loads(replayed.stdout)["view"] == seen  # offline, exactly what the live service showed
        logged = tabletop(tmp_path, "admin", "log", finished, *admin)
        assert "tabletop.match.v1.MatchEnded" in logged.stdout
        record = json.loads(tabletop(tmp_path, "admin", "record", finished, *admin).stdout)
        assert record["status"] == "MATCH_STATUS_FINISHED" and record["game"] == "pig"
        stuck = tabletop(tmp_path, "admin", "stuck", "--idle-minutes", "0", *admin)
        assert unfinished in stuck.stdout and finished not in stuck.stdout
        (tmp_path / "bad.json").write_text("{}")
        bad = tabletop(tmp_path, "verify", "--file", str(tmp_path / "bad.json"))
        assert bad.returncode == 2 and "not a tabletop-match/1 archive" in bad.stderr
    finally:
        for name in env_games:
            os.environ.pop(name, None)
