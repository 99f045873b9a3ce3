"""Content invariants of island-1: the printed counts, marked stand-ins, references that
resolve, unique ids, effects that parse, and every designed card within reach of play."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from services.games.discover import vocab as v
from services.games.discover.content import CONTENT_DIR, Content, ability, effect, load

CONTENT = load("island-1")
RAW: dict[str, Any] = json.loads((CONTENT_DIR / "island-1.json").read_text())

# Rulebook "Lista de componentes": 94-96 exploration cards, 30-32 enemy cards, 44 crafted-item
# cards, 103-106 feature tokens, 16 monster tokens, 2-5 special monster tokens. Where the rulebook
# gives a range, the content declares the middle of it.
PRINTED = {"exploration": (94, 96), "enemies": (30, 32), "items": (44, 44), "features": (103, 106)}
DECLARED = {"exploration": 95, "enemies": 31, "items": 44, "features": 106}
LANDMARK_CARDS = 8  # cards 1-8 are resolved by Investigate at the numbered landmarks


def test_the_declared_counts_are_within_the_printed_ranges_and_met() -> None:
    sizes = {
        "exploration": len(CONTENT.exploration),
        "enemies": len(CONTENT.enemies),
        "items": len(CONTENT.items),
        "features": len(CONTENT.features),
    }
    assert sizes == DECLARED
    assert all(lo <= DECLARED[k] <= hi for k, (lo, hi) in PRINTED.items())
    assert len(CONTENT.monster_tokens) == 16
    assert 2 <= sum(CONTENT.special_tokens.values()) <= 5


def test_numbered_decks_run_without_gaps_except_the_quest_item() -> None:
    # The numeric decks are searched by number; the quest's beacon keeps its number 20.
    assert sorted(CONTENT.exploration) == list(range(1, 96))
    assert sorted(CONTENT.enemies) == list(range(1, 32))
    assert sorted(CONTENT.items) == list(range(1, 45))


def test_ids_are_unique_in_every_section() -> None:
    # The loader builds dicts, so a repeated number would silently hide a card.
    for section, key in (
        ("exploration_cards", "number"),
        ("items", "number"),
        ("enemies", "number"),
        ("projects", "number"),
        ("night_cards", "number"),
        ("threat_cards", "number"),
        ("characters", "number"),
        ("support_cards", "id"),
        ("feature_tokens", "id"),
    ):
        ids = Counter(entry[key] for entry in RAW[section])
        assert not [i for i, n in ids.items() if n > 1], section
    actions = Counter(a["id"] for a in RAW["quest"]["card_actions"])
    assert all(n == 1 for n in actions.values())


def test_every_designed_entry_is_marked_with_a_reason() -> None:
    for section in ("exploration_cards", "items", "enemies"):
        for entry in RAW[section]:
            assert entry["stand_in"] is True and entry["reason"].strip(), (section, entry["number"])
    for action in RAW["quest"]["card_actions"][1:]:  # the beacon is covered by the quest's provenance
        assert action["stand_in"] is True and action["reason"].strip(), action["id"]
    for section in ("monster_tokens", "special_monster_tokens", "feature_tokens_provenance"):
        provenance = RAW[section].get("provenance", RAW[section])
        assert provenance["stand_in"] is True and provenance["reason"].strip(), section


def _raw_effects() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for c in RAW["exploration_cards"]:
        rows += c["first_time"] + c["later"] + c["always"]
    for section in ("night_cards", "threat_cards"):
        rows += [e for c in RAW[section] for e in c["effects"]]
    rows += [e for s in RAW["quest"]["stages"] for e in s["on_complete"]]
    rows += [e for a in RAW["quest"]["card_actions"] for e in a["effects"]]
    rows += [e for i in RAW["items"] if i["action"] for e in i["action"]["effects"]]
    return rows


def test_every_effect_and_ability_parses_into_the_vocabulary() -> None:
    parsed = [effect(row) for row in _raw_effects()]
    assert len(parsed) == len(_raw_effects()) > 200
    for entry in (*RAW["items"], *RAW["characters"]):
        for row in entry.get("passive", entry.get("abilities", [])):
            ability(row)


def _all_effects(content: Content) -> list[v.Effect]:
    found: list[v.Effect] = []
    for c in content.exploration.values():
        found += [*c.first_time, *c.later, *c.always]
    found += [e for n in content.night.values() for e in n.effects]
    found += [e for t in content.threats.values() for e in t.effects]
    found += [e for s in content.stages.values() for e in s.on_complete]
    found += [e for a in content.card_actions.values() for e in a.effects]
    found += [e for i in content.items.values() if i.action for e in i.action.effects]
    return found


def test_every_reference_resolves() -> None:
    effects = _all_effects(CONTENT)
    for e in effects:
        match e:
            case v.GainItem(item=item) | v.PlaceItem(item=item):
                assert item in CONTENT.items, e
            case v.ResolveCard(number=card_number):
                assert card_number in CONTENT.exploration, e
            case v.SpawnMonster(special=True, enemy=enemy):
                assert enemy in CONTENT.special_tokens and CONTENT.enemies[enemy].special, e
            case v.UnlockAction(action=action):
                assert action in CONTENT.card_actions, e
    landmarks = {s.landmark for t in CONTENT.tiles.values() for s in t.spaces if s.landmark}
    assert {a.landmark for a in CONTENT.card_actions.values()} <= landmarks
    for i in CONTENT.items.values():
        assert all(a.card in CONTENT.exploration for a in i.passive if isinstance(a, v.AltExploration))
        assert i.key_item or not any(isinstance(a, v.AltExploration) for a in i.passive)
    assert all(not CONTENT.enemies[n].special for n in CONTENT.monster_tokens.values())
    for _, face in CONTENT.features.values():
        kind, _, number = face.partition(":")
        if kind == "enemy":
            assert not CONTENT.enemies[int(number)].special
        elif kind == "explore":
            assert int(number) > LANDMARK_CARDS  # landmark cards are only investigated


def _reachable(content: Content) -> tuple[set[int], set[int], set[int]]:
    """Exploration cards, items and enemies that some play of the scenario can reach."""
    cards = set(range(1, LANDMARK_CARDS + 1))
    enemies = set(content.monster_tokens.values())
    for _, face in content.features.values():
        kind, _, number = face.partition(":")
        if kind == "explore":
            cards.add(int(number))
        elif kind == "enemy":
            enemies.add(int(number))
    items = {p.makes_item for p in content.projects.values()}
    roots = [*(e for s in content.stages.values() for e in s.on_complete)]
    roots += [e for n in content.night.values() for e in n.effects]
    roots += [e for t in content.threats.values() for e in t.effects]
    actions: set[str] = set()
    size = -1
    while size != len(cards) + len(items) + len(actions):
        size = len(cards) + len(items) + len(actions)
        effects = list(roots)
        for n in list(cards):
            c = content.exploration[n]
            effects += [*c.first_time, *c.later, *c.always]
        for i in list(items):
            spec = content.items[i]
            effects += list(spec.action.effects) if spec.action else []
            cards |= {a.card for a in spec.passive if isinstance(a, v.AltExploration)}
        effects += [e for a in actions for e in content.card_actions[a].effects]
        for e in effects:
            match e:
                case v.ResolveCard(number=card_number):
                    cards.add(card_number)
                case v.GainItem(item=item) | v.PlaceItem(item=item):
                    items.add(item)
                case v.UnlockAction(action=action):
                    actions.add(action)
                case v.SpawnMonster(special=True, enemy=enemy) if enemy:
                    enemies.add(enemy)
    return cards, items, enemies


def test_every_card_item_and_enemy_can_come_into_play() -> None:
    cards, items, enemies = _reachable(CONTENT)
    assert set(CONTENT.exploration) - cards == set()
    assert set(CONTENT.items) - items == set()
    assert set(CONTENT.enemies) - enemies == set()


def _gives_supplies(content: Content, face: str) -> bool:
    """A feature face that yields food, meat, water or medicine (itself, its card, or its enemy's reward)."""
    supplies = {"food", "meat", "clean_water", "dirty_water", "medicine"}
    kind, _, number = face.partition(":")
    if kind == "explore":
        c = content.exploration[int(number)]
        return any(isinstance(e, v.Gain) and e.resource in supplies for e in (*c.first_time, *c.always))
    if kind == "enemy":
        return any(r in supplies for r, _ in content.enemies[int(number)].rewards)
    return face in supplies


def test_supplies_are_on_at_least_half_of_the_feature_tokens() -> None:
    # Content decision (RULES.md, Content): night cards ask for food or water most nights, so
    # at least half of the feature tokens yield food, water or medicine.
    faces = [face for _, face in CONTENT.features.values()]
    share = sum(_gives_supplies(CONTENT, f) for f in faces) / len(faces)
    assert share >= 0.5


def test_the_map_carries_no_more_water_sources_than_the_box_holds() -> None:
    # Lista de componentes: "6 fichas de fuente de agua". Every tile of island-1 is placed, so
    # the sources printed on the tiles' spaces are all on the map at once.
    sources = [s.water for t in CONTENT.tiles.values() for s in t.spaces if s.water is not None]
    assert len(sources) == 6
    assert sorted(sources) == ["clean"] * 3 + ["dirty"] * 3
    assert len(CONTENT.tiles) == len(CONTENT.slots)
