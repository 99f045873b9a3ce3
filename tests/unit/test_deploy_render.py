"""The static deployment manifests hold what deploy/render.py renders from the game registry."""

from __future__ import annotations

import pytest

from deploy import kubernetes, render
from services.games import registry


@pytest.mark.parametrize("path", list(render.BLOCKS), ids=lambda p: p.name)
def test_committed_manifest_equals_its_rendering(path) -> None:
    assert path.read_text() == render.rendered(path), "run `python -m deploy.render`"


@pytest.mark.parametrize("path", list(render.BLOCKS), ids=lambda p: p.name)
def test_every_built_in_game_has_a_rules_process(path) -> None:
    text = path.read_text()
    addrs = render.rules_addrs(registry.GAMES)
    assert f"TABLETOP_RULES_ADDRS: {addrs}" in text
    for game in registry.GAMES:
        assert f"{game}={render.host_name(game)}:50050" in addrs
        assert f"TABLETOP_GAME, value: {game}}}" in text or f"TABLETOP_GAME: {game}}}" in text


def test_a_new_game_appears_in_every_manifest_by_rendering_alone() -> None:
    games = (*registry.GAMES, "new_game")
    for path in render.BLOCKS:
        text = render.rendered(path, games)
        assert "new_game=rules-new-game:50050" in text
        assert text.count("rules-new-game") >= 2  # the address and the process itself
        assert render.render(text, render.BLOCKS[path], games) == text  # rendering again changes nothing
    manifest = kubernetes.render(games)
    assert "new_game=rules-new-game:50050" in manifest
    assert "name: rules-new-game" in manifest and "value: new_game" in manifest


def test_a_manifest_without_its_blocks_is_refused() -> None:
    with pytest.raises(ValueError, match="missing"):
        render.render("services: {}\n", render.BLOCKS[render.COMPOSE], registry.GAMES)
    odd = "# begin generated: other\n# end generated: other\n"
    with pytest.raises(ValueError, match="unknown"):
        render.render(odd, render.BLOCKS[render.COMPOSE], registry.GAMES)
