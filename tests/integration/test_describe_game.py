"""DescribeGame through the real gateway and its HTTP edge: a game's words, public,
the same over gRPC and Connect JSON, NOT_FOUND for a game the server lacks."""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator

import grpc
import httpx
import pytest
from google.protobuf import json_format
from tabletop.gateway.v1 import gateway_pb2 as pb

from cli.api import Gateway, to_dict
from contract.gateway import PATHS
from deploy.stack import Stack
from services.games.common import words
from tests.integration.conftest import PIG

pytestmark = pytest.mark.integration
ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def stack(redis_url: str) -> Iterator[Stack]:
    with Stack(redis_url=redis_url, extra_env=PIG, matchmakers=0) as running:
        yield running


async def test_every_hosted_game_describes_itself_without_a_token(stack: Stack) -> None:
    async with Gateway(stack.gateway_addr) as g:
        listed = await g.stub.ListGames(pb.ListGamesRequest())
        for info in listed.games:
            reply = await g.stub.DescribeGame(pb.DescribeGameRequest(game=info.game))
            assert reply.words.game == info.game and reply.words.title
            # ListGames names each game for people as its words do, and says how it is won.
            assert (info.title, info.summary) == (reply.words.title, reply.words.summary)
            assert info.cooperative == (info.game == "discover")
            assert reply.words.events["undo_point"] == ""  # bookkeeping stays out of the log
        ed = (await g.stub.DescribeGame(pb.DescribeGameRequest(game="el_dorado"))).words
        assert ed.title == "The Quest for El Dorado"
        assert ed.tables["card"].entries["cartographer"].name == "Cartographer"
        assert ed.tables["halves"].entries["2"].name == "1 coin"
        assert ed.actions["buy_card"] == "Buy {card:card}"
        assert any(entry.group == "terrain" for entry in ed.legend)
        # An extra game with no words of its own still gets plain ones.
        pig = (await g.stub.DescribeGame(pb.DescribeGameRequest(game="pig"))).words
        assert pig.actions and pig.events["player_joined"]


async def test_unknown_and_malformed_games_are_refused_in_words(stack: Stack) -> None:
    async with Gateway(stack.gateway_addr) as g:
        with pytest.raises(grpc.aio.AioRpcError) as unknown:
            await g.stub.DescribeGame(pb.DescribeGameRequest(game="nosuchgame"))
        assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
        assert "nosuchgame" in (unknown.value.details() or "")
        for bad in ("", "Not A Game!", "x" * 500):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await g.stub.DescribeGame(pb.DescribeGameRequest(game=bad))
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, bad


def test_the_edge_relays_it_as_connect_json(stack: Stack) -> None:
    with httpx.Client(base_url=stack.edge_url, timeout=30.0) as http:
        answer = http.post(PATHS["DescribeGame"], json={"game": "la_isla"})
        assert answer.status_code == 200, answer.text
        said = answer.json()["words"]
        assert said["title"] == "La Isla"
        assert said["tables"]["card"]["entries"]["P001"]["name"] == "3 points on white"
        assert said["actions"]["assign_cards"].startswith("{a:card}")  # map keys stay as they are
        missing = http.post(PATHS["DescribeGame"], json={"game": "nosuchgame"})
        assert missing.status_code == 404 and missing.json()["code"] == "not_found"


async def test_a_real_matchs_log_reads_in_the_served_words(stack: Stack) -> None:
    async with Gateway(stack.gateway_addr) as g:
        served = (await g.stub.DescribeGame(pb.DescribeGameRequest(game="el_dorado"))).words
        created = await g.create("el_dorado", 2, by="ana")
        match_id = created.match.match_id
        ana = await g.join(match_id, "ana")
        await g.join(match_id, f"ben-{uuid.uuid4().hex[:6]}")
        await g.start(ana)
        tables = {name: {k: t.name for k, t in table.entries.items()} for name, table in served.tables.items()}
        lines = []
        for entry in await g.log(match_id, ana):
            payload = to_dict(entry.event, "el_dorado") if entry.type.startswith("tabletop.games.") else (
                json_format.MessageToDict(_platform(entry), preserving_proto_field_name=True))
            text = words.describe(dict(served.events), entry.type, payload, tables)
            assert text is not None, entry.type
            lines.append(text)
        said = "\n".join(line for line in lines if line)
        assert "sat down" in said and "The game begins" in said and "drew" in said
        assert "_" not in said and "{" not in said


def _platform(entry: pb.LogEntry) -> object:
    from services.match.lifecycle import PLATFORM_EVENTS

    message = PLATFORM_EVENTS[entry.type]()
    entry.event.Unpack(message)
    return message


# ------------------------------------------------------------------ the CLI speaks the words

def tabletop(home: pathlib.Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TABLETOP_HOME": str(home)}
    env.pop("TABLETOP_GATEWAY", None)
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=90)


def test_the_cli_lists_views_and_watches_in_words(stack: Stack, tmp_path: pathlib.Path) -> None:
    gateway = ("--gateway", stack.gateway_addr)
    match_id = tabletop(tmp_path, "create", "la_isla", "--players", "2", "--name", "ana", *gateway).stdout.strip()
    assert tabletop(tmp_path, "join", match_id, "--name", "ana", *gateway).returncode == 0
    assert tabletop(tmp_path, "join", match_id, "--name", "ben", *gateway).returncode == 0
    assert tabletop(tmp_path, "start", match_id, "--seat", "0", *gateway).returncode == 0
    listed = tabletop(tmp_path, "actions", match_id, "--seat", "0", *gateway)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    label = re.compile(r"\d+: .+ → slot \d; take \w+; move the [a-z ]+")
    assert lines and all(label.fullmatch(line) for line in lines), lines[:3]
    assert not re.search(r"P\d{3}|[{}]", listed.stdout)
    raw = tabletop(tmp_path, "actions", match_id, "--seat", "0", "--json", *gateway)
    assert json.loads(raw.stdout.splitlines()[0].split(": ", 1)[1])["assign_cards"]["a"].startswith("P")
    shown = tabletop(tmp_path, "view", match_id, "--seat", "0", *gateway)
    assert shown.returncode == 0, shown.stderr
    assert "La Isla" in shown.stdout and "ana (seat 0)" in shown.stdout and "phase: assigning cards" in shown.stdout
    assert not re.search(r"\bP\d{3}\b|PHASE_|COLOUR_", shown.stdout)
    assert max(len(line) for line in shown.stdout.splitlines()) > 80  # nothing cut to 80 columns
    env = {**os.environ, "TABLETOP_HOME": str(tmp_path)}
    watching = subprocess.Popen([sys.executable, "-m", "cli", "watch", match_id, *gateway], cwd=ROOT,
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, _ = watching.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        watching.kill()
        out, _ = watching.communicate()
    assert "ana sat down" in out or "ana (seat 0) sat down" in out, out
    assert "The game begins" in out and "{" not in out and "undo point" not in out


def test_the_cli_says_what_went_wrong_and_what_to_do(stack: Stack, tmp_path: pathlib.Path) -> None:
    down = tabletop(tmp_path, "games", "--gateway", "127.0.0.1:1")
    assert down.returncode == 1
    assert "cannot reach the gateway at 127.0.0.1:1 - is `make run` running?" in down.stderr
    gateway = ("--gateway", stack.gateway_addr)
    nosuch = tabletop(tmp_path, "leaderboard", "--game", "nosuchgame", *gateway)
    assert nosuch.returncode != 0 and "nosuchgame" in nosuch.stderr and "next:" in nosuch.stderr
    match_id = tabletop(tmp_path, "create", "el_dorado", "--players", "2", "--name", "ana", *gateway).stdout.strip()
    assert tabletop(tmp_path, "join", match_id, "--name", "ana", *gateway).returncode == 0
    seats = json.loads((tmp_path / "seats.json").read_text())
    seats[match_id]["0"] = seats[match_id]["0"][:-6] + "xxxxxx"
    (tmp_path / "seats.json").write_text(json.dumps(seats))
    broken = tabletop(tmp_path, "view", match_id, "--seat", "0", *gateway)
    assert broken.returncode == 1, broken.stdout
    assert "UNAUTHENTICATED" in broken.stderr and "tabletop join" in broken.stderr
