"""`tabletop view` reads as tables for every game, not as a page of JSON."""

from __future__ import annotations

import io
import json
import pathlib

import pytest
from rich.console import Console

from cli import render

FIXTURES = sorted(p for p in (pathlib.Path(__file__).resolve().parents[2] / "web" / "fixtures").glob("*-*.json"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_every_games_view_renders_as_tables_and_lines(path: pathlib.Path) -> None:
    fixture = json.loads(path.read_text())
    view = {k: v for k, v in fixture["view"].items() if k != "@type"}
    out = io.StringIO()
    Console(file=out, width=140, force_terminal=False).print(render.match_view(fixture["match"], view))
    text = out.getvalue()
    lines = text.splitlines()
    raw = json.dumps(fixture["view"], indent=2).splitlines()
    assert len(lines) < len(raw), "shorter than the JSON it replaces"
    assert not any(line.lstrip().startswith(("{", '"')) for line in lines), "no raw JSON"
    for name, value in view.items():
        assert name in text, name  # every field is shown, under its own name
        if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            assert any(line.strip() == name for line in lines), f"{name} as a table"


def test_cells_are_compact() -> None:
    assert render._inline([1, 2, 3]) == "1, 2, 3"
    assert render._inline(list(range(20))).endswith("... (20)")
    assert render._inline({"q": 1, "r": -2}) == "q=1 r=-2"
    assert render._inline(True) == "yes" and render._inline([]) == "-"


def test_clocks_show_each_seats_time_left_a_running_one_counted_down_to_its_deadline() -> None:
    clocks = [
        {"seat": 0, "remaining_ms": "60000", "running": True, "deadline_ms": "1000042000"},
        {"seat": 1, "remaining_ms": "3725000"},
    ]
    line = render.clock_line(clocks, now_s=1_000_000.0)
    assert line == "seat 0 0:42 left (running), seat 1 1:02:05"


def test_a_payload_of_a_game_this_client_lacks_is_named_not_a_crash() -> None:
    from google.protobuf import any_pb2

    from cli.api import to_dict

    packed = any_pb2.Any(type_url="type.googleapis.com/tabletop.elsewhere.v1.Action", value=b"")
    assert to_dict(packed, "a-game-this-build-lacks") == {"type": "tabletop.elsewhere.v1.Action"}
