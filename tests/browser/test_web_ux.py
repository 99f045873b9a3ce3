"""The web table for a new player, on a desktop and on a phone, in headless Chromium.

Runs web/tests/ux.mjs against a stand-in gateway made from web/fixtures (every
request recorded): one SubmitAction per click on every kind of board choice in
every game, from the list and from the keyboard, and the same command id on a
retry; no horizontal overflow at 390x844 and 1400x1000 with the choices on screen
on the phone (screenshots in the folder it prints); the lobby's typed options,
display name, leaderboard names and waiting room; Quick match's Cancel and the
ticket withdrawn when the page is left; errors as sentences. For the gateway-down
case it also starts a real HTTP edge whose gateway is not there.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from tests.browser.test_web_table import ROOT, WEB, _missing

pytestmark = pytest.mark.browser


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def edge_without_gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An HTTP edge serving web/dist whose gateway address answers nothing."""
    ready = tmp_path_factory.mktemp("edge") / "ready"
    env = {
        **os.environ,
        "TABLETOP_PORT": "0",
        "TABLETOP_READY_FILE": str(ready),
        "TABLETOP_GATEWAY_ADDR": f"127.0.0.1:{_closed_port()}",
        "TABLETOP_WEB_DIR": str(WEB / "dist"),
    }
    proc = subprocess.Popen([sys.executable, "-m", "gateway.edge"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not ready.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the edge did not start")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{ready.read_text().split()[0]}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.skipif(bool(_missing()), reason=_missing() or "ready")
def test_the_table_for_a_new_player(edge_without_gateway: str) -> None:
    shots = WEB / "artifacts" / "ux"  # ignored by git, beside the other tests' screenshots
    env = {**os.environ, "TABLETOP_DOWN_URL": edge_without_gateway, "SHOTS": str(shots)}
    done = subprocess.run(["node", str(WEB / "tests" / "ux.mjs")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    print(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " 0 failed" in done.stdout
    for part in (
        "every kind of choice clicked in el_dorado", "every kind of choice clicked in la_isla",
        "every kind of choice clicked in discover", "a retry reuses the command id", "Cancel withdraws the ticket",
        "leaving the page withdraws the ticket", "gateway down reads as words: real edge without its gateway",
    ):
        assert f"ok   {part}" in done.stdout, part
    for game in ("el_dorado-1", "la_isla-2", "discover-2"):
        for size in ("phone", "desktop"):
            assert (shots / f"{game}-{size}.png").stat().st_size > 10_000
    assert (shots / "lobby-phone.png").exists() and (shots / "lobby-desktop.png").exists()
