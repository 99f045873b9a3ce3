"""The browser's words formatter (web/dist/js/words.js) holds to the same test vectors as
the Python one, and renders each game's own templates as Python does; the web table's
copy of the words (web/dist/data/words.json) is what DescribeGame serves."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
from typing import Any

import pytest

from contract.words import dump, game_words
from services.games.common import words

ROOT = pathlib.Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "fixtures" / "words_vectors.json"
NODE = shutil.which("node")

# A payload per template field path: what a real payload would hold there.
SAMPLE_VALUES: dict[str, object] = {
    "seat": 1, "card": "scout", "cards": ["scout", "explorer"], "halves": 3, "removed": True, "count": 2,
    "a": "P001", "b": "P002", "d": "P003", "slot": 1, "payment": ["COLOUR_WHITE", "COLOUR_GREY"],
    "character": 5, "project": 7, "item": 2, "resource": "clean_water", "amount": -2,
}


def _run(vectors: pathlib.Path) -> subprocess.CompletedProcess[str]:
    assert NODE is not None
    return subprocess.run([NODE, str(ROOT / "web" / "tests" / "words.mjs"), str(vectors)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(NODE is None, reason="node is not installed (make web-deps)")
def test_the_browser_formatter_passes_the_shared_vectors() -> None:
    done = _run(VECTORS)
    assert done.returncode == 0, done.stdout + done.stderr
    count = len(json.loads(VECTORS.read_text())["vectors"])
    assert done.stdout.strip().endswith(" 0 failed")
    assert int(done.stdout.split()[0]) >= count


@pytest.mark.skipif(NODE is None, reason="node is not installed (make web-deps)")
def test_the_browser_renders_every_game_template_as_python_does(tmp_path: pathlib.Path) -> None:
    data: dict[str, Any] = json.loads(VECTORS.read_text())
    samples, tables = [], {}
    for game in ("el_dorado", "la_isla", "discover"):
        said = game_words(game)
        tables[game] = {name: {k: {"name": t.name} for k, t in entries.items()}
                       for name, entries in said.tables.items()}
        for kind, template in {**said.actions, **said.events}.items():
            payload = {"seat": 1, **SAMPLE_VALUES}
            samples.append({"game": game, "kind": kind, "template": template, "payload": payload,
                            "expected": words.render(template, payload, said.tables)})
    data["samples"], data["sampleTables"] = samples, tables
    dumped = tmp_path / "vectors.json"
    dumped.write_text(json.dumps(data, ensure_ascii=False))
    done = _run(dumped)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr


def test_the_web_tables_copy_of_the_words_is_current() -> None:
    shipped = json.loads((ROOT / "web" / "dist" / "data" / "words.json").read_text())
    assert shipped == json.loads(json.dumps(dump())), (
        "web/dist/data/words.json is stale: python -m contract.words > web/dist/data/words.json"
    )
