"""Typed content specs of a Discover scenario and the loader of content/<scenario>.json."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TypeVar

from services.games.discover import vocab as v
from services.games.discover.content_rows import (
    AbilityRow,
    CardActionRow,
    CharacterRow,
    EffectRow,
    EnemyRow,
    ExplorationRow,
    ItemRow,
    NightRow,
    ScenarioFile,
    StageRow,
    SupportRow,
    ThreatRow,
    TileRow,
)
from services.games.discover.vocab import Ability, DamageType, Effect, Hex

CONTENT_DIR = Path(__file__).parent / "content"
SCENARIOS = ("island-1",)
Amount = TypeVar("Amount", int, str)


@dataclass(frozen=True)
class SpaceSpec:
    """One printed hex of a map tile."""

    hex: Hex
    terrain: str
    camp: bool
    fire: bool
    feature_pool: str | None
    water: str | None
    landmark: int | None


@dataclass(frozen=True)
class TileSpec:
    id: int
    group: str
    spaces: tuple[SpaceSpec, ...]  # hexes relative to the tile centre


@dataclass(frozen=True)
class Slot:
    """A tile position of the terrain reference; its tile is drawn from its group."""

    index: int
    group: str
    centre: Hex


@dataclass(frozen=True)
class EnemySpec:
    number: int
    name: str
    defence: int
    attack: int | None  # None: the "-" attack, never damages
    health: int
    lethal: bool
    special: bool
    rewards: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class ExplorationSpec:
    number: int
    name: str
    first_time: tuple[Effect, ...]
    later: tuple[Effect, ...]
    always: tuple[Effect, ...]


@dataclass(frozen=True)
class CombatUse:
    grey: int
    red: int
    reroll: str | None  # "grey" | "red"


@dataclass(frozen=True)
class ItemAction:
    stamina: int
    discard: bool
    effects: tuple[Effect, ...]
    near_terrain: str | None


@dataclass(frozen=True)
class ItemSpec:
    number: int
    name: str
    key_item: bool
    passive: tuple[Ability, ...]
    combat: CombatUse | None
    action: ItemAction | None
    placed: bool  # stays in the crafter's space instead of being carried
    shelter: bool


@dataclass(frozen=True)
class ProjectSpec:
    number: int
    makes_item: int
    cost: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class NightSpec:
    id: str
    tier: str
    name: str
    effects: tuple[Effect, ...]


@dataclass(frozen=True)
class ThreatSpec:
    id: str  # one per physical copy, e.g. "T03b"
    name: str
    effects: tuple[Effect, ...]
    explore_extra: int  # ongoing: Explore costs this much more
    ongoing: bool
    tribal: bool


@dataclass(frozen=True)
class SupportSpec:
    """A combat-support card: its die modifiers apply without asking (the supporter "must use" them);
    a re-roll is worded with "puede", so the supporter decides whether to use it (Combate de apoyo)."""

    id: str
    colour: str
    name: str
    grey: int
    red: int
    reroll: str | None

    @property
    def optional(self) -> bool:
        """The card's ability says "puede": its supporter is asked during the dice modification step."""
        return self.reroll is not None


@dataclass(frozen=True)
class CharacterSpec:
    number: int
    name: str
    abilities: tuple[Ability, ...]


@dataclass(frozen=True)
class Objective:
    """kind: item_in_play(item) | landmarks_investigated(count) | landmark_investigated(landmark)
    | item_at_landmark(item, landmark)."""

    kind: str
    item: int
    count: int
    landmark: int


@dataclass(frozen=True)
class StageSpec:
    stage: int
    name: str
    objectives: tuple[Objective, ...]
    on_complete: tuple[Effect, ...]
    win_at_landmark: int | None
    objective_icons: tuple[int, ...]


@dataclass(frozen=True)
class CardActionSpec:
    id: str
    landmark: int
    stamina: int
    cost: tuple[tuple[str, str], ...]  # resource -> formula of M
    effects: tuple[Effect, ...]


@dataclass(frozen=True)
class Content:
    scenario: str
    terrain_cost: dict[str, int | None]  # None: impassable
    resources: tuple[str, ...]
    features: dict[str, tuple[str, str]]  # token id -> (pool, face)
    directions: tuple[Hex, ...]  # N, NE, SE, S, SW, NW
    compass: dict[int, int]  # red die face -> index into directions
    slots: tuple[Slot, ...]
    tiles: dict[int, TileSpec]
    enemies: dict[int, EnemySpec]
    monster_tokens: dict[str, int]  # token id -> enemy number
    special_tokens: dict[int, int]  # enemy number -> copies
    exploration: dict[int, ExplorationSpec]
    items: dict[int, ItemSpec]
    projects: dict[int, ProjectSpec]
    night: dict[str, NightSpec]
    threats: dict[str, ThreatSpec]
    support: dict[str, SupportSpec]
    characters: dict[int, CharacterSpec]
    stages: dict[int, StageSpec]
    card_actions: dict[str, CardActionSpec]
    stamina_by_players: dict[int, int]
    projects_by_players: dict[int, int]
    characters_dealt: dict[int, int]
    starting_resources: tuple[tuple[str, int], ...]


@cache
def load(scenario: str) -> Content:
    """The content of `scenario` (cached; content never changes at run time)."""
    raw: ScenarioFile = json.loads((CONTENT_DIR / f"{scenario}.json").read_text())
    m = raw["map"]
    offsets = {k: Hex(*xy) for k, xy in m["tile_offsets"].items()}
    setup = raw["setup"]
    return Content(
        scenario=scenario,
        terrain_cost={t["id"]: t["move_cost"] for t in raw["terrains"]},
        resources=tuple(raw["resources"]),
        features={t["id"]: (t["pool"], t["face"]) for t in raw["feature_tokens"]},
        directions=tuple(offsets[d] for d in m["directions"]),
        compass={int(k): m["directions"].index(d) for k, d in m["compass"].items() if k.isdigit()},
        slots=tuple(Slot(i, s["group"], Hex(*s["centre"])) for i, s in enumerate(m["slots"])),
        tiles={t["id"]: _tile(t, offsets) for t in m["tiles"]},
        enemies={e["number"]: _enemy(e) for e in raw["enemies"]},
        monster_tokens=_monster_tokens(raw["monster_tokens"]),
        special_tokens={
            int(k): n for k, n in raw["special_monster_tokens"].items() if k.isdigit() and isinstance(n, int)
        },
        exploration={c["number"]: _exploration(c) for c in raw["exploration_cards"]},
        items={i["number"]: _item(i) for i in raw["items"]},
        projects={p["number"]: ProjectSpec(p["number"], p["makes_item"], _pairs(p["cost"])) for p in raw["projects"]},
        night={f"N{c['number']:02d}": _night(c) for c in raw["night_cards"]},
        threats=_threats(raw["threat_cards"]),
        support={s["id"]: _support(s) for s in raw["support_cards"]},
        characters={c["number"]: _character(c) for c in raw["characters"]},
        stages={s["stage"]: _stage(s) for s in raw["quest"]["stages"]},
        card_actions={a["id"]: _card_action(a) for a in raw["quest"]["card_actions"]},
        stamina_by_players=_int_keys(setup["stamina_by_players"]),
        projects_by_players=_int_keys(setup["projects_by_players"]),
        characters_dealt=_int_keys(setup["characters_dealt"]),
        starting_resources=_pairs(setup["starting_resources"]),
    )


def _int_keys(d: dict[str, int]) -> dict[int, int]:
    return {int(k): n for k, n in d.items()}


def _pairs(d: Mapping[str, Amount]) -> tuple[tuple[str, Amount], ...]:
    return tuple(sorted(d.items()))


def _tile(t: TileRow, offsets: dict[str, Hex]) -> TileSpec:
    spaces = tuple(
        SpaceSpec(
            hex=offsets[s["pos"]],
            terrain=s["terrain"],
            camp=bool(s.get("camp")),
            fire=bool(s.get("fire")),
            feature_pool=s.get("feature_icon"),
            water=s.get("water_source"),
            landmark=s.get("landmark"),
        )
        for s in t["spaces"]
    )
    return TileSpec(t["id"], t["group"], spaces)


def _enemy(e: EnemyRow) -> EnemySpec:
    attack = e["attack"] if isinstance(e["attack"], int) else None
    return EnemySpec(
        e["number"],
        e["name"],
        e["defence"],
        attack,
        e["health"],
        e["lethal"],
        e["special"],
        _pairs(e["rewards"]),
    )


def _monster_tokens(dist: Mapping[str, int | Mapping[str, object]]) -> dict[str, int]:
    tokens: dict[str, int] = {}
    for number, copies in sorted((int(k), n) for k, n in dist.items() if k.isdigit() and isinstance(n, int)):
        for copy in range(copies):
            tokens[f"M{number:02d}{chr(ord('a') + copy)}"] = number
    return tokens


def _exploration(c: ExplorationRow) -> ExplorationSpec:
    return ExplorationSpec(
        c["number"], c["name"], _effects(c["first_time"]), _effects(c["later"]), _effects(c["always"])
    )


def _item(i: ItemRow) -> ItemSpec:
    combat = i["combat"]
    action = i["action"]
    return ItemSpec(
        number=i["number"],
        name=i["name"],
        key_item=i["key_item"],
        passive=tuple(ability(a) for a in i["passive"]),
        combat=CombatUse(combat["grey"], combat["red"], combat["reroll"]) if combat else None,
        action=(
            ItemAction(action["stamina"], action["discard"], _effects(action["effects"]), action["near_terrain"])
            if action
            else None
        ),
        placed=i["placed"],
        shelter=i["shelter"],
    )


def _night(c: NightRow) -> NightSpec:
    return NightSpec(f"N{c['number']:02d}", c["tier"], c["name"], _effects(c["effects"]))


def _threats(cards: list[ThreatRow]) -> dict[str, ThreatSpec]:
    specs: dict[str, ThreatSpec] = {}
    for c in cards:
        ongoing = c["ongoing"] or {}
        for copy in range(c["copies"]):
            tid = f"T{c['number']:02d}{chr(ord('a') + copy)}"
            specs[tid] = ThreatSpec(
                tid,
                c["name"],
                _effects(c["effects"]),
                ongoing.get("explore_extra", 0),
                bool(ongoing),
                c["tribal"],
            )
    return specs


def _support(s: SupportRow) -> SupportSpec:
    return SupportSpec(s["id"], s["colour"], s["name"], s["grey"], s["red"], s["reroll"])


def _character(c: CharacterRow) -> CharacterSpec:
    return CharacterSpec(c["number"], c["name"], tuple(ability(a) for a in c["abilities"]))


def _stage(s: StageRow) -> StageSpec:
    objectives = tuple(
        Objective(o["kind"], o.get("item", 0), o.get("count", 0), o.get("landmark", 0)) for o in s["objectives"]
    )
    return StageSpec(
        s["stage"],
        s["name"],
        objectives,
        _effects(s["on_complete"]),
        s["win_at_landmark"],
        tuple(s["objective_icons"]),
    )


def _card_action(a: CardActionRow) -> CardActionSpec:
    return CardActionSpec(a["id"], a["landmark"], a["stamina"], _pairs(a["cost"]), _effects(a["effects"]))


def _effects(raw: list[EffectRow]) -> tuple[Effect, ...]:
    return tuple(effect(e) for e in raw)


def effect(e: EffectRow) -> Effect:
    """One effect from its JSON form {"op": ..., ...}."""
    op = e["op"]
    target = v.Target(e.get("target", "self"))
    dmg = DamageType(e["damage"]) if e.get("damage") not in (None, "any") else None
    simple: dict[str, Callable[[], Effect]] = {
        "gain": lambda: v.Gain(e["resource"], e["amount"], target),
        "spend": lambda: v.Spend(e["resource"], e["amount"], target),
        "pay_or": lambda: v.PayOr(_pairs(e["pay"]), DamageType(e["damage"]), e["amount"], target),
        "damage": lambda: v.Damage(DamageType(e["damage"]), e["amount"], target),
        "heal": lambda: v.Heal(dmg, e["amount"]),
        "stamina": lambda: v.Stamina(e["amount"], target),
        "gain_item": lambda: v.GainItem(e["item"]),
        "spawn_monster": lambda: v.SpawnMonster(e["special"], e["enemy"], v.SpawnAt(e["at"]), e["landmark"]),
        "move_monsters": lambda: v.MoveMonsters(e["steps"], v.Which(e["which"]), v.Toward(e["toward"])),
        "extinguish_fires": lambda: v.ExtinguishFires(e["where"] == "camp", e["unless_wood"]),
        "place_fire": lambda: v.PlaceFire(e["lit"]),
        "clue": lambda: v.Clue(e["amount"]),
        "draw_project": lambda: v.DrawProject(e["amount"]),
        "advance_quest": lambda: v.AdvanceQuest(e["if_stage"], e["to_stage"]),
        "resolve_card": lambda: v.ResolveCard(e["number"]),
        "shelter": lambda: v.Shelter(),
        "unlock_action": lambda: v.UnlockAction(e["action"]),
        "place_item": lambda: v.PlaceItem(e["item"]),
        "threats": lambda: v.Threats(str(e["count"])),
    }
    if op not in simple:
        raise ValueError(f"unknown effect op {op}")
    result: Effect = simple[op]()
    return result


def ability(a: AbilityRow) -> Ability:
    """One ability from its JSON form {"kind": ..., ...}."""
    kinds: dict[str, Callable[[], Ability]] = {
        "move_discount": lambda: v.MoveDiscount(a["terrain"], a["amount"]),
        "combat_bonus": lambda: v.CombatBonus(a["grey"], a["red"]),
        "poison_bonus": lambda: v.PoisonBonus(a["amount"]),
        "defeat_bonus": lambda: v.DefeatBonus(a["resource"], a["amount"]),
        "gather_bonus": lambda: v.GatherBonus(a["source"], a["resource"], a["amount"]),
        "action_discount": lambda: v.ActionDiscount(a["action"], a["amount"]),
        "recipe_discount": lambda: v.RecipeDiscount(a["resource"], a["amount"]),
        "night_heal": lambda: v.NightHeal(DamageType(a["damage"])),
        "clean_water": lambda: v.CleanWater(),
        "portable_fire": lambda: v.PortableFire(),
        "free_fire": lambda: v.FreeFire(),
        "escape": lambda: v.EscapeCombat(a["stamina"]),
        "alt_exploration": lambda: v.AltExploration(a["card"]),
    }
    result: Ability = kinds[a["kind"]]()
    return result


def m_formula(formula: str, m: int) -> int:
    """Evaluate "3", "M", "M-1" or "M+1" for M players; a formula gives at least 1."""
    if "M" not in formula:
        return int(formula)
    rest = formula.replace("M", "")
    return max(1, m + (int(rest) if rest else 0))
