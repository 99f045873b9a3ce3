"""The words formatter (services/games/common/words.py) against the shared test vectors,
which web/tests/words.mjs holds the browser's formatter to as well."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

from services.games.common import words

VECTORS: dict[str, Any] = json.loads(
    (pathlib.Path(__file__).parents[1] / "fixtures" / "words_vectors.json").read_text()
)


def _tables() -> dict[str, dict[str, words.Term]]:
    return {
        table: {key: words.Term(entry["name"], entry.get("text", "")) for key, entry in entries.items()}
        for table, entries in VECTORS["tables"].items()
    }


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: v["name"])
def test_each_vector_renders_as_expected(vector: dict[str, Any]) -> None:
    assert words.render(vector["template"], vector["payload"], _tables()) == vector["expected"]


@pytest.mark.parametrize("template", VECTORS["errors"])
def test_malformed_templates_are_refused(template: str) -> None:
    with pytest.raises(words.TemplateError):
        words.parse(template)


@pytest.mark.parametrize("case", VECTORS["kinds"], ids=lambda c: c["kind"])
def test_kind_of_finds_the_oneof_or_the_message_name(case: dict[str, Any]) -> None:
    assert words.kind_of(case["type"], case["payload"]) == (case["kind"], case["fields"])


def test_tables_by_name_as_plain_strings_work_too() -> None:
    assert words.render("{seat:seat} wins", {"seat": 2}, {"seat": {"2": "ben"}}) == "ben wins"


def test_describe_tells_bookkeeping_from_unknown() -> None:
    templates = {"undo_point": "", "match_started": "The game begins"}
    assert words.describe(templates, "tabletop.match.v1.UndoPoint", {"events": 1}, {}) == ""
    assert words.describe(templates, "tabletop.match.v1.MatchStarted", {}, {}) == "The game begins"
    assert words.describe(templates, "tabletop.match.v1.Nothing", {}, {}) is None


def test_tables_used_walks_into_choices() -> None:
    assert words.tables_used("{a:x}{?b|{c:y}|{d:z}}") == {"x", "y", "z"}
