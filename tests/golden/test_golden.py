"""Seeded playthroughs reproduce their golden files exactly."""

from __future__ import annotations

import json

import pytest

from services.games import registry
from tests.golden.playthroughs import FOLDER, case_name, cases, record


@pytest.mark.parametrize("case", cases(), ids=lambda c: case_name(*c))
def test_playthrough_matches_its_golden_file(case) -> None:
    path = FOLDER / case_name(*case)
    if not path.exists():
        pytest.fail(f"{path.name} is missing: run `make golden`")
    expected = json.loads(path.read_text())
    actual = record(*case)
    assert actual["first_events"] == expected["first_events"]
    assert (actual["event_count"], actual["steps"], actual["outcome"]) == (
        expected["event_count"], expected["steps"], expected["outcome"])
    assert actual["events_sha256"] == expected["events_sha256"]


def test_every_built_in_game_has_a_golden_playthrough() -> None:
    assert {game for game, *_ in cases()} == set(registry.GAMES)


def test_every_golden_file_belongs_to_a_declared_sample() -> None:
    expected = {case_name(*case) for case in cases()}
    assert {path.name for path in FOLDER.glob("*.json")} == expected
