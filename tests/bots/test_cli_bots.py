"""`tabletop bots --bot search` plays a whole match through the gateway and says why it ended."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from deploy.stack import UNLIMITED_CALLERS, Stack

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def stack(redis_url: str) -> Iterator[Stack]:
    games = ("la_isla", "el_dorado", "discover")
    with Stack(redis_url=redis_url, extra_env=dict(UNLIMITED_CALLERS), games=games, matchmakers=0) as running:
        yield running


def _bots(stack: Stack, *args: str, game: str = "la_isla") -> str:
    played = subprocess.run(
        [sys.executable, "-m", "cli", "bots", "--game", game, "--players", "2", "--seed", "4",
         "--gateway", stack.gateway_addr, *args],
        cwd=ROOT, capture_output=True, text=True, timeout=240, check=True,
    )
    return played.stdout


def test_search_bots_play_a_match_and_the_output_says_why_it_ended(stack: Stack) -> None:
    out = _bots(stack, "--bot", "search", "--budget", "6")
    assert "ended after" in out
    ended = [line for line in out.splitlines() if line.startswith("ended: ")]
    assert ended and ended[0] in ("ended: the animal markers reached the end threshold", "ended: the cards ran out")


def test_an_unknown_bot_is_refused(stack: Stack) -> None:
    with pytest.raises(subprocess.CalledProcessError) as failed:
        _bots(stack, "--bot", "genius")
    assert "--bot" in failed.value.stderr


def test_discover_search_bots_play_a_match_to_its_end(stack: Stack) -> None:
    out = _bots(stack, "--bot", "search", "--budget", "4", game="discover")
    ended = [line for line in out.splitlines() if line.startswith("ended: ")]
    assert "ended after" in out
    assert ended
    assert ended[0] in (
        "ended: no survivor is left on the map",
        "ended: the survivors left on the map escaped by the signal fire",
        "ended: some survivors escaped by the signal fire, the others fell",
    ) or ended[0].startswith("ended: the survivors did not")
