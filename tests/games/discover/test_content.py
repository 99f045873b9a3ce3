"""The content set: complete, consistent with the rulebook's counts, stand-ins marked."""

from __future__ import annotations

import json
from collections import Counter

from services.games.discover.content import CONTENT_DIR, load, m_formula
from services.games.discover.vocab import EscapeCombat, GainItem, ResolveCard

CONTENT = load("island-1")


def test_component_counts_match_the_rulebook() -> None:
    assert Counter(c.tier for c in CONTENT.night.values()) == {"I": 4, "II": 6}
    assert len(CONTENT.threats) == 24
    assert len(CONTENT.monster_tokens) == 16
    assert 2 <= sum(CONTENT.special_tokens.values()) <= 5
    assert len(CONTENT.support) == 12 and len(CONTENT.characters) == 12
    assert 103 <= len(CONTENT.features) <= 106
    assert len(CONTENT.projects) == 11
    assert len([t for t in CONTENT.tiles.values() if t.group != "start"]) == 17


def test_every_feature_icon_on_the_map_has_a_token_to_draw() -> None:
    icons = Counter(s.feature_pool for t in CONTENT.tiles.values() for s in t.spaces if s.feature_pool)
    pools = Counter(pool for pool, _ in CONTENT.features.values())
    assert all(icons[p] <= pools[p] for p in icons)


def test_cards_only_refer_to_content_that_exists() -> None:
    for _, face in CONTENT.features.values():
        kind, _, number = face.partition(":")
        if kind == "enemy":
            assert int(number) in CONTENT.enemies
        elif kind == "explore":
            assert int(number) in CONTENT.exploration
        else:
            assert face in CONTENT.resources
    effects = [e for c in CONTENT.exploration.values() for e in (*c.first_time, *c.later, *c.always)]
    assert all(e.item in CONTENT.items for e in effects if isinstance(e, GainItem))
    assert all(e.number in CONTENT.exploration for e in effects if isinstance(e, ResolveCard))
    assert all(p.makes_item in CONTENT.items for p in CONTENT.projects.values())
    assert set(CONTENT.monster_tokens.values()) <= set(CONTENT.enemies)


def test_every_designed_entry_is_marked_as_a_stand_in_with_a_reason() -> None:
    raw = json.loads((CONTENT_DIR / "island-1.json").read_text())
    for section in ("exploration_cards", "items", "projects", "night_cards", "threat_cards", "characters", "enemies"):
        for entry in raw[section]:
            assert entry["stand_in"] is True and entry["reason"], (section, entry)


def test_m_formulas() -> None:
    assert [m_formula(f, 3) for f in ("2", "M", "M-1", "M+1")] == [2, 3, 2, 4]
    assert m_formula("M-1", 1) == 1  # a formula gives at least one


def test_escape_comes_only_from_cards_and_always_costs_stamina() -> None:
    """Escapar del combate: only cards allow it. A paid escape keeps a lone survivor facing a lethal
    enemy from escaping forever (the enemy fights it again after each escape)."""
    holders = [c.abilities for c in CONTENT.characters.values()] + [i.passive for i in CONTENT.items.values()]
    escapes = [a for abilities in holders for a in abilities if isinstance(a, EscapeCombat)]
    assert escapes and all(a.stamina >= 1 for a in escapes)
