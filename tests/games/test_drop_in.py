"""A new game is its package (and, for the web table, one renderer module): nothing else
is edited. Nim (tests/fixtures/drop_in/nim) is dropped into `services.games` in a fresh
interpreter, as if copied to services/games/nim/, and every place that lists, plays,
hosts, matches, benchmarks or names games must pick it up from its declaration."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from services.games import registry

ROOT = Path(__file__).resolve().parents[2]
DROP_IN = ROOT / "tests" / "fixtures" / "drop_in"

# Run in the fresh interpreter: each line a place that reads the registry.
PROBE = """
import json, sys
import services.games
services.games.__path__.append(sys.argv[1])

from services.games import registry
from services.dice.playout import play
from services.matchmaker.tables import matchmade_defaults
from contract.payloads import payload_types
from contract.words import title_and_summary
from cli.main import _end_reason
from bench.engines import games_per_second
from bots import eval as bots_eval
from deploy import kubernetes, render
from web.tools import make_fixtures

entry = registry.game("nim")
played = play(entry.engine, {}, 3, seed=7)
print(json.dumps({
    "built_in": list(registry.GAMES),
    "available": list(registry.available()),
    "action_message": entry.codec.action_message.DESCRIPTOR.full_name,
    "payloads": sorted(name for name in payload_types() if ".nim." in name),
    "title": list(title_and_summary("nim")),
    "matchmade": matchmade_defaults("nim"),
    "end_reason": _end_reason("nim", {"reason": "last_stone"}),
    "bench_players": games_per_second("nim", seconds=0.05)["players"],
    "competitive": list(bots_eval.COMPETITIVE),
    "rules_addrs": render.rules_addrs(registry.GAMES),
    "workloads": [w.name for w in kubernetes.workloads(registry.GAMES)],
    "fixtures": sorted({p[0] for p in make_fixtures.positions()}),
    "played_to_the_end": played.outcome is not None,
}))
"""


def test_a_game_dropped_into_the_games_package_needs_no_other_edit() -> None:
    ran = subprocess.run(
        [sys.executable, "-c", PROBE, str(DROP_IN)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    seen = json.loads(ran.stdout.strip().splitlines()[-1])
    assert "nim" in seen["built_in"] and "nim" in seen["available"]
    assert seen["action_message"] == "tabletop.testing.nim.v1.Action"
    assert seen["payloads"] == [f"tabletop.testing.nim.v1.{name}" for name in ("Action", "Event", "View")]
    assert seen["title"] == ["Nim", "Take one to three stones a turn; whoever takes the last stone wins."]
    assert seen["matchmade"]["clock_seconds"] == "45"  # its declared pace, not the common 60
    assert seen["end_reason"] == "the last stone was taken"  # from its words' reason table
    assert seen["bench_players"] == 3  # its usual_seats
    assert "nim" in seen["competitive"]
    assert "nim=rules-nim:" in seen["rules_addrs"]
    assert "rules-nim" in seen["workloads"]
    assert "nim" in seen["fixtures"]
    assert seen["played_to_the_end"]


def test_the_web_app_names_no_game_outside_each_games_renderer() -> None:
    # The table loads web/dist/js/games/<game>.js by the game's name (renderers.js); the
    # lobby's art is the renderer's too. No other module of the app names a game.
    names = re.compile("|".join(rf"\b{game}\b" for game in registry.GAMES))
    for path in sorted((ROOT / "web" / "dist" / "js").glob("*.js")):
        found = names.findall(path.read_text())
        assert not found, f"{path.relative_to(ROOT)} names {sorted(set(found))}"
