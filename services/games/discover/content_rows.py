"""The shape of content/<scenario>.json as the loader in content.py reads it.

These describe the JSON, not the game: content.py turns each row into its
frozen spec. json.loads does not check them; the content tests do, by loading
every scenario. Keys the loader does not read (provenance notes) are left out.
"""

from __future__ import annotations

from typing import Required, TypedDict


class EffectRow(TypedDict, total=False):
    """{"op": ..., ...}: the keys an op reads (see content.effect)."""

    op: Required[str]
    target: str
    damage: str
    resource: str
    amount: int
    pay: dict[str, int]
    item: int
    special: bool
    enemy: int | None
    at: str
    landmark: int | None
    steps: int
    which: str
    toward: str
    where: str
    unless_wood: int
    lit: bool
    if_stage: int
    to_stage: int
    number: int
    action: str
    count: str


class AbilityRow(TypedDict, total=False):
    """{"kind": ..., ...}: the keys a kind reads (see content.ability)."""

    kind: Required[str]
    terrain: str
    amount: int
    grey: int
    red: int
    resource: str
    source: str
    action: str
    damage: str
    card: int
    stamina: int


class TerrainRow(TypedDict):
    id: str
    move_cost: int | None


class FeatureTokenRow(TypedDict):
    id: str
    pool: str
    face: str


class SpaceRow(TypedDict, total=False):
    pos: Required[str]
    terrain: Required[str]
    camp: bool
    fire: str
    feature_icon: str
    water_source: str
    landmark: int


class TileRow(TypedDict):
    id: int
    group: str
    spaces: list[SpaceRow]


class SlotRow(TypedDict):
    group: str
    centre: list[int]


class MapRow(TypedDict):
    tile_offsets: dict[str, list[int]]
    directions: list[str]
    compass: dict[str, str]  # red die face -> direction; other keys are notes
    slots: list[SlotRow]
    tiles: list[TileRow]


class EnemyRow(TypedDict):
    number: int
    name: str
    defence: int
    attack: int | str  # "-": never damages
    health: int
    lethal: bool
    special: bool
    rewards: dict[str, int]


class ExplorationRow(TypedDict):
    number: int
    name: str
    first_time: list[EffectRow]
    later: list[EffectRow]
    always: list[EffectRow]


class CombatRow(TypedDict):
    grey: int
    red: int
    reroll: str | None


class ItemActionRow(TypedDict):
    stamina: int
    discard: bool
    effects: list[EffectRow]
    near_terrain: str | None


class ItemRow(TypedDict):
    number: int
    name: str
    key_item: bool
    passive: list[AbilityRow]
    combat: CombatRow | None
    action: ItemActionRow | None
    placed: bool
    shelter: bool


class ProjectRow(TypedDict):
    number: int
    makes_item: int
    cost: dict[str, int]


class NightRow(TypedDict):
    number: int
    tier: str
    name: str
    effects: list[EffectRow]


class OngoingRow(TypedDict, total=False):
    explore_extra: int


class ThreatRow(TypedDict):
    number: int
    name: str
    copies: int
    effects: list[EffectRow]
    ongoing: OngoingRow | None
    tribal: bool


class SupportRow(TypedDict):
    id: str
    colour: str
    name: str
    grey: int
    red: int
    reroll: str | None


class CharacterRow(TypedDict):
    number: int
    name: str
    abilities: list[AbilityRow]


class ObjectiveRow(TypedDict, total=False):
    kind: Required[str]
    item: int
    count: int
    landmark: int


class StageRow(TypedDict):
    stage: int
    name: str
    objectives: list[ObjectiveRow]
    on_complete: list[EffectRow]
    win_at_landmark: int | None
    objective_icons: list[int]


class CardActionRow(TypedDict):
    id: str
    landmark: int
    stamina: int
    cost: dict[str, str]  # resource -> formula of M
    effects: list[EffectRow]


class QuestRow(TypedDict):
    stages: list[StageRow]
    card_actions: list[CardActionRow]


class SetupRow(TypedDict):
    stamina_by_players: dict[str, int]
    projects_by_players: dict[str, int]
    characters_dealt: dict[str, int]
    starting_resources: dict[str, int]


class ScenarioFile(TypedDict):
    terrains: list[TerrainRow]
    resources: list[str]
    feature_tokens: list[FeatureTokenRow]
    map: MapRow
    enemies: list[EnemyRow]
    monster_tokens: dict[str, int | dict[str, object]]  # enemy number -> copies; "provenance" a note
    special_monster_tokens: dict[str, int | dict[str, object]]  # likewise
    exploration_cards: list[ExplorationRow]
    items: list[ItemRow]
    projects: list[ProjectRow]
    night_cards: list[NightRow]
    threat_cards: list[ThreatRow]
    support_cards: list[SupportRow]
    characters: list[CharacterRow]
    quest: QuestRow
    setup: SetupRow
