"""Two seats in two browser contexts play a match of each game through the web
table against the real stack (gateway, services, HTTP edge serving web/dist).

Runs web/tests/play.mjs, which picks random legal actions from each seat's page
until the match ends, checks after every few moves that neither page shows the
other seat's hidden cards, and saves screenshots as web/artifacts/play-*.png.
Skips when the HTTP edge (gateway/edge) is not part of this build, or when node
packages or chromium are missing (`make web-deps`).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.test_web_table import WEB, _missing

ROOT = WEB.parent
pytestmark = [pytest.mark.browser, pytest.mark.integration]

NO_EDGE = importlib.util.find_spec("gateway.edge") is None


@pytest.fixture(scope="module")
def edge_url() -> Iterator[str]:
    from deploy.stack import Stack

    running = Stack(extra_env={"TABLETOP_WEB_DIR": str(WEB / "dist")}, matchmakers=1)
    try:
        running.start()
        yield running.edge_url  # type: ignore[attr-defined]
    finally:
        running.stop()


@pytest.mark.skipif(NO_EDGE, reason="no HTTP edge in this build (gateway/edge): the table needs Connect over HTTP")
@pytest.mark.skipif(bool(_missing()), reason=_missing() or "ready")
@pytest.mark.parametrize("game", ["la_isla", "discover", "el_dorado"])
def test_two_seats_play_to_the_end(edge_url: str, game: str) -> None:
    env = {**os.environ, "TABLETOP_WEB_URL": edge_url, "PLAY_MAX_STEPS": "1500"}
    done = subprocess.run(
        ["node", str(WEB / "tests" / "play.mjs"), game], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 0 failed" in done.stdout
    for shot in ("seat0", "seat1", "spectator", "end"):
        assert Path(WEB / "artifacts" / f"play-{game}-{shot}.png").exists()


@pytest.mark.skipif(NO_EDGE, reason="no HTTP edge in this build (gateway/edge): the table needs Connect over HTTP")
@pytest.mark.skipif(bool(_missing()), reason=_missing() or "ready")
def test_quick_match_seats_two_browsers_at_one_table(edge_url: str) -> None:
    env = {**os.environ, "TABLETOP_WEB_URL": edge_url}
    done = subprocess.run(
        ["node", str(WEB / "tests" / "play.mjs"), "quick"], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert Path(WEB / "artifacts" / "quick-la_isla.png").exists()
