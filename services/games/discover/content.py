"""Typed content specs of a Discover scenario and the loader of content/<scenario>.json."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path
from typing import TypeVar

from services.games.common.content import Hooks, as_object, from_row, load_rows, read_json, typed
from services.games.discover import vocab as v
from services.games.discover.vocab import Ability, Effect, Hex

CONTENT_DIR = Path(__file__).parent / "content"
SCENARIOS = ("island-1",)
# Provenance written beside a row's data: kept in the file, read by no rule.
NOTES = ("stand_in", "reason")
Row = TypeVar("Row")
Offsets = dict[str, tuple[int, int]]
Pairs = tuple[tuple[str, int], ...]  # a JSON object {"food": 1} as its items sorted by key


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
    item: int = 0
    count: int = 0
    landmark: int = 0


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
    file = f"{scenario}.json"
    raw = read_json(CONTENT_DIR / file)
    m = as_object(raw["map"], f"{file} map")
    offsets = {k: Hex(*xy) for k, xy in typed(m["tile_offsets"], Offsets, where=f"{file} map.tile_offsets").items()}
    directions = typed(m["directions"], list[str], where=f"{file} map.directions")
    compass = typed(m["compass"], dict[str, str], where=f"{file} map.compass")
    quest = as_object(raw["quest"], f"{file} quest")
    setup = as_object(raw["setup"], f"{file} setup")

    def rows(key: str, spec: type[Row], ignore: tuple[str, ...] = NOTES, in_quest: bool = False) -> tuple[Row, ...]:
        section, at = (quest, f"{file} quest") if in_quest else (raw, file)
        return load_rows(section[key], spec, where=_at(at, key), ignore=ignore, hooks=HOOKS)

    def counts(key: str) -> dict[int, int]:
        return typed(setup[key], dict[int, int], where=f"{file} setup.{key}")

    slots = _list(m, "slots", f"{file} map")
    return Content(
        scenario=scenario,
        terrain_cost={t.id: t.move_cost for t in rows("terrains", _Terrain)},
        resources=typed(raw["resources"], tuple[str, ...], where=f"{file} resources"),
        features={t.id: (t.pool, t.face) for t in rows("feature_tokens", _FeatureToken)},
        directions=tuple(offsets[d] for d in directions),
        compass={int(k): directions.index(d) for k, d in compass.items() if k.isdigit()},
        slots=tuple(_slot(i, s, f"{file} map.slots[{i}]") for i, s in enumerate(slots)),
        tiles={t.id: t for t in _each(m, "tiles", f"{file} map", lambda row, at: _tile(row, offsets, at))},
        enemies={e.number: e for e in _each(raw, "enemies", file, _enemy)},
        monster_tokens=_monster_tokens(as_object(raw["monster_tokens"], f"{file} monster_tokens")),
        special_tokens={
            int(k): n
            for k, n in as_object(raw["special_monster_tokens"], f"{file} special_monster_tokens").items()
            if k.isdigit() and isinstance(n, int)
        },
        exploration={c.number: c for c in rows("exploration_cards", ExplorationSpec, ignore=(*NOTES, "trigger"))},
        items={i.number: i for i in rows("items", ItemSpec)},
        projects={p.number: p for p in rows("projects", ProjectSpec)},
        night={c.id: c for c in _each(raw, "night_cards", file, _night)},
        threats={t.id: t for copies in _each(raw, "threat_cards", file, _threats) for t in copies},
        support={s.id: s for s in rows("support_cards", SupportSpec)},
        characters={c.number: c for c in rows("characters", CharacterSpec)},
        stages={s.stage: s for s in rows("stages", StageSpec, in_quest=True)},
        card_actions={a.id: a for a in rows("card_actions", CardActionSpec, in_quest=True)},
        stamina_by_players=counts("stamina_by_players"),
        projects_by_players=counts("projects_by_players"),
        characters_dealt=counts("characters_dealt"),
        starting_resources=typed(setup["starting_resources"], Pairs, where=f"{file} setup.starting_resources"),
    )


@dataclass(frozen=True)
class _Terrain:
    """A row of "terrains": what a step onto the terrain costs (None: impassable)."""

    id: str
    move_cost: int | None


@dataclass(frozen=True)
class _FeatureToken:
    """A row of "feature_tokens": the token's pool and face."""

    id: str
    pool: str
    face: str


def _at(where: str, key: str) -> str:
    """Where `key` of the object at `where` sits: "island-1.json map" then "island-1.json map.tiles"."""
    return f"{where} {key}" if where.endswith(".json") else f"{where}.{key}"


def _list(section: Mapping[str, object], key: str, where: str) -> list[object]:
    return typed(section[key], list[object], where=_at(where, key))


def _each(section: Mapping[str, object], key: str, where: str, build: Callable[[object, str], Row]) -> list[Row]:
    """`build(row, where)` of every row of the array `section[key]`."""
    return [build(row, f"{_at(where, key)}[{i}]") for i, row in enumerate(_list(section, key, where))]


def _slot(index: int, raw: object, where: str) -> Slot:
    return from_row(Slot, {"index": index, **as_object(raw, where)}, where=where, hooks=HOOKS)


def _tile(raw: object, offsets: Mapping[str, Hex], where: str) -> TileSpec:
    """A map tile; a space's "pos" names its offset from the tile centre (map.tile_offsets)."""
    row = as_object(raw, where)
    spaces = tuple(_each(row, "spaces", where, lambda space, at: _space(space, offsets, at)))
    tile_id, group = typed(row["id"], int, where=f"{where}.id"), typed(row["group"], str, where=f"{where}.group")
    return TileSpec(tile_id, group, spaces)


_SPACE_KEYS = {"pos": "hex", "feature_icon": "feature_pool", "water_source": "water"}


def _space(raw: object, offsets: Mapping[str, Hex], where: str) -> SpaceSpec:
    """A printed hex: "fire" names the fire's state (any fire counts), absent keys are false or None."""
    row = {_SPACE_KEYS.get(k, k): val for k, val in as_object(raw, where).items()}
    pos = typed(row.get("hex"), str, where=f"{where}.pos")
    if pos not in offsets:
        raise ValueError(f"{where}.pos: no tile offset {pos!r}")
    row["fire"] = bool(row.get("fire"))
    defaults: dict[str, object] = {"camp": False, "feature_pool": None, "water": None, "landmark": None}
    hooks: Hooks = {Hex: lambda _value, _where: offsets[pos]}
    return from_row(SpaceSpec, {**defaults, **row}, where=where, hooks=hooks)


def _enemy(raw: object, where: str = "enemy") -> EnemySpec:
    """An enemy; an attack that is not a number ("-") never damages."""
    row = as_object(raw, where)
    attack = row.get("attack")
    row = {**row, "attack": attack if isinstance(attack, int) else None}
    return from_row(EnemySpec, row, where=where, ignore=NOTES)


def _monster_tokens(dist: Mapping[str, object]) -> dict[str, int]:
    tokens: dict[str, int] = {}
    for number, copies in sorted((int(k), n) for k, n in dist.items() if k.isdigit() and isinstance(n, int)):
        for copy in range(copies):
            tokens[f"M{number:02d}{chr(ord('a') + copy)}"] = number
    return tokens


def _night(raw: object, where: str) -> NightSpec:
    """A night card, whose id is its number as "N07"."""
    row = dict(as_object(raw, where))
    number = typed(row.pop("number", None), int, where=f"{where}.number")
    return from_row(NightSpec, {"id": f"N{number:02d}", **row}, where=where, ignore=NOTES, hooks=HOOKS)


def _threats(raw: object, where: str) -> list[ThreatSpec]:
    """A threat card, one spec per physical copy ("T03a", "T03b"); "ongoing" holds what lasts."""
    row = dict(as_object(raw, where))
    number = typed(row.pop("number", None), int, where=f"{where}.number")
    copies = typed(row.pop("copies", None), int, where=f"{where}.copies")
    ongoing = as_object(row.pop("ongoing", None) or {}, f"{where}.ongoing")
    unknown = [k for k in ongoing if k != "explore_extra"]
    if unknown:
        raise ValueError(f"{where}.ongoing: unknown field {unknown[0]!r}")
    row |= {"explore_extra": ongoing.get("explore_extra", 0), "ongoing": bool(ongoing)}
    ids = [f"T{number:02d}{chr(ord('a') + copy)}" for copy in range(copies)]
    return [from_row(ThreatSpec, {"id": tid, **row}, where=where, ignore=NOTES, hooks=HOOKS) for tid in ids]


_EFFECTS: dict[str, type[Effect]] = {
    "gain": v.Gain,
    "spend": v.Spend,
    "pay_or": v.PayOr,
    "damage": v.Damage,
    "heal": v.Heal,
    "stamina": v.Stamina,
    "gain_item": v.GainItem,
    "spawn_monster": v.SpawnMonster,
    "move_monsters": v.MoveMonsters,
    "extinguish_fires": v.ExtinguishFires,
    "place_fire": v.PlaceFire,
    "clue": v.Clue,
    "draw_project": v.DrawProject,
    "advance_quest": v.AdvanceQuest,
    "resolve_card": v.ResolveCard,
    "shelter": v.Shelter,
    "unlock_action": v.UnlockAction,
    "place_item": v.PlaceItem,
    "threats": v.Threats,
}
_ABILITIES: dict[str, type[Ability]] = {
    "move_discount": v.MoveDiscount,
    "combat_bonus": v.CombatBonus,
    "poison_bonus": v.PoisonBonus,
    "defeat_bonus": v.DefeatBonus,
    "gather_bonus": v.GatherBonus,
    "action_discount": v.ActionDiscount,
    "recipe_discount": v.RecipeDiscount,
    "night_heal": v.NightHeal,
    "clean_water": v.CleanWater,
    "portable_fire": v.PortableFire,
    "free_fire": v.FreeFire,
    "escape": v.EscapeCombat,
    "alt_exploration": v.AltExploration,
}


def effect(raw: object, where: str = "effect") -> Effect:
    """One effect from its JSON form {"op": ..., ...}: the op's fields by name; a target
    defaults to "self", a heal of "any" (or no) damage type heals any, "where": "camp"
    limits an extinguishing to camp, a count of threats is a formula."""
    row = dict(as_object(raw, where))
    op = row.pop("op", None)
    if not isinstance(op, str) or op not in _EFFECTS:
        raise ValueError(f"{where}: unknown effect op {op}")
    spec = _EFFECTS[op]
    if any(f.name == "target" for f in fields(spec)):
        row.setdefault("target", v.Target.SELF.value)
    if op == "heal" and row.get("damage") in (None, "any"):
        row["damage"] = None
    if op == "extinguish_fires":
        row["camp_only"] = row.pop("where", None) == "camp"
    if op == "threats" and "count" in row:
        row["count"] = str(row["count"])
    return from_row(spec, row, where=f"{where} ({op})")


def ability(raw: object, where: str = "ability") -> Ability:
    """One ability from its JSON form {"kind": ..., ...}: the kind's fields by name."""
    row = dict(as_object(raw, where))
    kind = row.pop("kind", None)
    if not isinstance(kind, str) or kind not in _ABILITIES:
        raise ValueError(f"{where}: unknown ability kind {kind}")
    return from_row(_ABILITIES[kind], row, where=f"{where} ({kind})")


def _hex(raw: object, where: str) -> Hex:
    return Hex(*typed(raw, tuple[int, int], where=where))


# Converters of what a type hint alone cannot say: effects and abilities by their op or
# kind, a hex written [q, r].
HOOKS: Hooks = {Effect: effect, Ability: ability, Hex: _hex}


def m_formula(formula: str, m: int) -> int:
    """Evaluate "3", "M", "M-1" or "M+1" for M players; a formula gives at least 1."""
    if "M" not in formula:
        return int(formula)
    rest = formula.replace("M", "")
    return max(1, m + (int(rest) if rest else 0))
