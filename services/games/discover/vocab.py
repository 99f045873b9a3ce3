"""The typed vocabulary of Discover content: map coordinates, card effects, abilities.

Card effects and abilities are small frozen dataclasses that the engine
interprets; no rule branches on a card name or number.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.games.common.enums import GameEnum


@dataclass(frozen=True, order=True)
class Hex:
    """An axial hex coordinate (q, r); north is (0, -1)."""

    q: int
    r: int

    def __add__(self, other: Hex) -> Hex:
        return Hex(self.q + other.q, self.r + other.r)


class DamageType(GameEnum):
    PHYSICAL = "physical"
    HUNGER = "hunger"
    THIRST = "thirst"
    EXPOSURE = "exposure"


class Target(GameEnum):
    """Whom an effect touches; EACH_* means every survivor on the map matching it."""

    SELF = "self"
    EACH = "each"
    EACH_OTHER = "each_other"
    EACH_EXPOSED = "each_exposed"
    EACH_IN_UNDERBRUSH = "each_in_underbrush"
    EACH_ON_MOUNTAIN = "each_on_mountain"


class SpawnAt(GameEnum):
    THIS_SPACE = "this_space"
    LANDMARK = "landmark"
    DEFAULT = "default"


class Which(GameEnum):
    ALL = "all"
    NEAREST = "nearest"


class Toward(GameEnum):
    NEAREST_SURVIVOR = "nearest_survivor"
    SELF = "self"


# ---------------------------------------------------------------- effects


@dataclass(frozen=True)
class Gain:
    resource: str
    amount: int
    target: Target


@dataclass(frozen=True)
class Spend:
    """Lose up to `amount` of a resource (as many as are held)."""

    resource: str
    amount: int
    target: Target


@dataclass(frozen=True)
class PayOr:
    """Each target pays `pay` (resource or "stamina" -> n) when able, else takes damage."""

    pay: tuple[tuple[str, int], ...]
    damage: DamageType
    amount: int
    target: Target


@dataclass(frozen=True)
class Damage:
    damage: DamageType
    amount: int
    target: Target


@dataclass(frozen=True)
class Heal:
    """Heal `amount` damage of one type (None: any type) of the acting survivor."""

    damage: DamageType | None
    amount: int


@dataclass(frozen=True)
class Stamina:
    amount: int
    target: Target


@dataclass(frozen=True)
class GainItem:
    item: int


@dataclass(frozen=True)
class SpawnMonster:
    special: bool
    enemy: int | None
    at: SpawnAt
    landmark: int | None


@dataclass(frozen=True)
class MoveMonsters:
    steps: int
    which: Which
    toward: Toward


@dataclass(frozen=True)
class ExtinguishFires:
    camp_only: bool
    unless_wood: int


@dataclass(frozen=True)
class PlaceFire:
    lit: bool


@dataclass(frozen=True)
class Clue:
    amount: int


@dataclass(frozen=True)
class DrawProject:
    amount: int


@dataclass(frozen=True)
class AdvanceQuest:
    if_stage: int
    to_stage: int


@dataclass(frozen=True)
class ResolveCard:
    number: int


@dataclass(frozen=True)
class Shelter:
    """The acting survivor's space counts as shelter from now on."""


@dataclass(frozen=True)
class UnlockAction:
    action: str


@dataclass(frozen=True)
class PlaceItem:
    item: int


@dataclass(frozen=True)
class Threats:
    """Draw threat cards; `count` is an int or a formula of M ("M", "M-1", "M+1")."""

    count: str


Effect = (
    Gain
    | Spend
    | PayOr
    | Damage
    | Heal
    | Stamina
    | GainItem
    | SpawnMonster
    | MoveMonsters
    | ExtinguishFires
    | PlaceFire
    | Clue
    | DrawProject
    | AdvanceQuest
    | ResolveCard
    | Shelter
    | UnlockAction
    | PlaceItem
    | Threats
)

# ---------------------------------------------------------------- abilities


@dataclass(frozen=True)
class MoveDiscount:
    terrain: str
    amount: int


@dataclass(frozen=True)
class CombatBonus:
    grey: int
    red: int


@dataclass(frozen=True)
class PoisonBonus:
    amount: int


@dataclass(frozen=True)
class DefeatBonus:
    resource: str
    amount: int


@dataclass(frozen=True)
class GatherBonus:
    """Extra `resource` ("water": of the source's kind) when gathering from `source`."""

    source: str
    resource: str
    amount: int


@dataclass(frozen=True)
class ActionDiscount:
    action: str
    amount: int


@dataclass(frozen=True)
class RecipeDiscount:
    resource: str
    amount: int


@dataclass(frozen=True)
class NightHeal:
    damage: DamageType


@dataclass(frozen=True)
class CleanWater:
    """Dirty water you would gain is clean instead."""


@dataclass(frozen=True)
class PortableFire:
    """Your space counts as a lit fire for Cook."""


@dataclass(frozen=True)
class FreeFire:
    """Restart Fire costs you no wood."""


@dataclass(frozen=True)
class EscapeCombat:
    """The card lets its holder escape from a combat before the dice are rolled, paying `stamina`."""

    stamina: int


@dataclass(frozen=True)
class AltExploration:
    """Key item: when you draw an exploration card you may resolve card `card` instead."""

    card: int


Ability = (
    MoveDiscount
    | CombatBonus
    | PoisonBonus
    | DefeatBonus
    | GatherBonus
    | ActionDiscount
    | RecipeDiscount
    | NightHeal
    | CleanWater
    | PortableFire
    | FreeFire
    | EscapeCombat
    | AltExploration
)
