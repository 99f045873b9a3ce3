"""The reference web table in headless Chromium: every fixture renders as a board.

Runs web/tests/render.mjs (playwright-core driving Debian's chromium), which loads
each recorded view in web/fixtures in the table's fixture mode, checks that the
board drew and no script failed, and saves a screenshot per fixture under
web/artifacts/. `make web-deps` installs what it needs (chromium, npm ci).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))

pytestmark = pytest.mark.browser


def _missing() -> str:
    if shutil.which("node") is None:
        return "node is not installed (make web-deps)"
    if not (WEB / "node_modules" / "playwright-core").is_dir():
        return "web/node_modules is missing: run `make web-deps` (npm ci in web/)"
    if not CHROMIUM.exists():
        return f"no chromium at {CHROMIUM}: run `make web-deps` (apt-get install chromium)"
    return ""


@pytest.mark.skipif(bool(_missing()), reason=_missing() or "ready")
def test_every_fixture_renders_as_a_board() -> None:
    names = json.loads((WEB / "fixtures" / "index.json").read_text())
    for name in names:
        (WEB / "artifacts" / f"{name}.png").unlink(missing_ok=True)
    done = subprocess.run(
        ["node", str(WEB / "tests" / "render.mjs")], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for name in [*names, "lobby", "replay-la_isla-3"]:
        shot = WEB / "artifacts" / f"{name}.png"
        assert shot.exists() and shot.stat().st_size > 20_000, f"no screenshot of {name}"
    assert f"{len(names) + 2} passed, 0 failed" in done.stdout


def test_fixtures_are_real_views() -> None:
    """Each fixture holds a game's view as the Connect JSON mapping writes it."""
    for path in sorted((WEB / "fixtures").glob("*-*.json")):
        fixture = json.loads(path.read_text())
        game = fixture["game"]
        assert fixture["view"]["@type"] == f"type.googleapis.com/tabletop.games.{game}.v1.View", path.name
        for action in fixture["legalActions"]:
            assert action["@type"] == f"type.googleapis.com/tabletop.games.{game}.v1.Action", path.name
        assert fixture["match"]["game"] == game
