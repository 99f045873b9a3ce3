"""Every built-in game package has one shape: the same module for the same role (docs/engines.md)."""

from __future__ import annotations

import importlib.util

import pytest

from services.games import registry

ROLES = ("state", "actions", "events", "content", "setup", "flow", "legal", "decide", "evolve",
         "visibility", "view", "result", "rules")
DECLARED_IN = {
    "setup": "setup", "to_move": "flow", "legal_actions": "legal", "decide": "decide", "evolve": "evolve",
    "visibility": "visibility", "redact": "visibility", "view": "view", "result": "result",
}


@pytest.mark.parametrize("game", registry.GAMES)
def test_every_role_has_its_module(game: str) -> None:
    missing = [role for role in ROLES if importlib.util.find_spec(f"services.games.{game}.{role}") is None]
    assert not missing, f"{game} lacks {missing}"


@pytest.mark.parametrize("game", registry.GAMES)
def test_the_declared_functions_come_from_their_role_modules(game: str) -> None:
    declared = registry.declaration(game)
    for field, role in DECLARED_IN.items():
        assert getattr(declared, field).__module__ == f"services.games.{game}.{role}", field
    # The codec is built from the declared schema (services/games/registry.py codec_of).
    assert declared.codec is None
    assert declared.schema.package == f"tabletop.games.{game}.v1"
    assert declared.options is importlib.import_module(f"services.games.{game}.setup").OPTIONS


@pytest.mark.parametrize("game", registry.GAMES)
@pytest.mark.parametrize("module", ["engine", "codec", "schema", "content_rows"])
def test_no_game_keeps_a_copy_of_what_the_platform_builds(game: str, module: str) -> None:
    assert importlib.util.find_spec(f"services.games.{game}.{module}") is None
