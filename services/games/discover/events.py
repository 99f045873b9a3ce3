"""What happened: past-tense events; `evolve` folds them into the state."""

from __future__ import annotations

from dataclasses import dataclass

from services.games.discover.state import CombatStage, Step
from services.games.discover.vocab import DamageType, Hex

# ---------------------------------------------------------------- bookkeeping and chance


@dataclass(frozen=True)
class StepsQueued:
    """Steps put on top of the agenda, first step first."""

    steps: tuple[Step, ...]


@dataclass(frozen=True)
class StepDone:
    """The step on top of the agenda is finished."""


@dataclass(frozen=True)
class PileFormed:
    pile: str
    size: int


@dataclass(frozen=True)
class DiscardsReshuffled:
    """A discard pile becomes a new draw pile (night: level II cards only)."""

    deck: str
    pile: str
    cards: tuple[str, ...]


@dataclass(frozen=True)
class LeaderRolled:
    seats: tuple[int, ...]
    values: tuple[int, ...]


@dataclass(frozen=True)
class LeaderChanged:
    seat: int


@dataclass(frozen=True)
class CharactersDealt:
    seat: int
    characters: tuple[int, ...]


@dataclass(frozen=True)
class ProjectsDrawn:
    seat: int
    projects: tuple[int, ...]


@dataclass(frozen=True)
class HiddenCardsDealt:
    """What others see of CharactersDealt / ProjectsDrawn."""

    seat: int
    deck: str
    count: int


@dataclass(frozen=True)
class CharacterChosen:
    seat: int
    character: int


@dataclass(frozen=True)
class CharacterPicked:
    """What others see of CharacterChosen."""

    seat: int


@dataclass(frozen=True)
class CharactersRevealed:
    characters: tuple[int, ...]  # by seat


# ---------------------------------------------------------------- day


@dataclass(frozen=True)
class DayStarted:
    day: int
    order: tuple[int, ...]


@dataclass(frozen=True)
class TurnEnded:
    seat: int


@dataclass(frozen=True)
class DayEnded:
    day: int


@dataclass(frozen=True)
class StaminaChanged:
    seat: int
    stamina: int  # the new value, within 0..12


@dataclass(frozen=True)
class SurvivorMoved:
    seat: int
    to: Hex


@dataclass(frozen=True)
class TileRevealed:
    slot: int
    tile: int


@dataclass(frozen=True)
class FeatureRevealed:
    seat: int
    space: Hex
    token: str
    face: str  # a resource, "enemy:N" or "explore:N"


@dataclass(frozen=True)
class ResourceChanged:
    seat: int
    resource: str
    amount: int  # signed


@dataclass(frozen=True)
class ItemGained:
    seat: int
    item: int


@dataclass(frozen=True)
class ItemLost:
    """The item card goes back to its numeric deck."""

    seat: int
    item: int


@dataclass(frozen=True)
class ItemPlaced:
    item: int
    space: Hex


@dataclass(frozen=True)
class ProjectCrafted:
    seat: int
    project: int
    from_hand: bool


@dataclass(frozen=True)
class TradeOpened:
    seat: int
    partner: int


@dataclass(frozen=True)
class TradeGoodListed:
    """One good added to the proposal: given by the active survivor, or asked of the partner."""

    giver: int
    resource: str
    item: int  # 0 when a resource


@dataclass(frozen=True)
class TradeOffered:
    seat: int
    partner: int


@dataclass(frozen=True)
class TradeAnswered:
    partner: int
    accepted: bool


@dataclass(frozen=True)
class GoodsTransferred:
    giver: int
    taker: int
    resource: str
    item: int  # 0 when a resource moved


@dataclass(frozen=True)
class TradeClosed:
    seat: int


@dataclass(frozen=True)
class LandmarkInvestigated:
    seat: int
    landmark: int


@dataclass(frozen=True)
class CardResolved:
    seat: int
    number: int


@dataclass(frozen=True)
class FireChanged:
    space: Hex
    lit: bool


@dataclass(frozen=True)
class ShelterMarked:
    space: Hex


@dataclass(frozen=True)
class DamageTaken:
    seat: int
    damage: DamageType


@dataclass(frozen=True)
class DamageHealed:
    seat: int
    damage: DamageType


@dataclass(frozen=True)
class SurvivorEliminated:
    seat: int


@dataclass(frozen=True)
class SurvivorWon:
    seat: int


# ---------------------------------------------------------------- monsters and combat


@dataclass(frozen=True)
class EnemySpawned:
    enemy: str
    number: int  # 0: face down
    space: Hex
    special: bool


@dataclass(frozen=True)
class MonsterRevealed:
    enemy: str
    number: int


@dataclass(frozen=True)
class MonsterMoved:
    enemy: str
    to: Hex


@dataclass(frozen=True)
class FighterVoted:
    """A survivor in the monster's space names who should fight it."""

    seat: int
    fighter: int


@dataclass(frozen=True)
class FighterChosen:
    seat: int


@dataclass(frozen=True)
class CombatStarted:
    seat: int
    enemy: str
    supporters: tuple[int, ...]


@dataclass(frozen=True)
class SupportPlayed:
    seat: int
    card: str


# Before the roll: the supporter plays no card; in the dice modification step: it lets
# the "may" ability of the card it played go unused.
@dataclass(frozen=True)
class SupportDeclined:
    seat: int


@dataclass(frozen=True)
class CombatStageSet:
    stage: CombatStage


@dataclass(frozen=True)
class CombatRolled:
    grey: int
    red: int


@dataclass(frozen=True)
class RerollRequested:
    die: str
    source: str


@dataclass(frozen=True)
class DieRerolled:
    die: str
    value: int


@dataclass(frozen=True)
class DieModified:
    die: str
    amount: int
    source: str  # "poison", "salvage", "item:N", "support:<card>", "character"


@dataclass(frozen=True)
class EnemyDamaged:
    enemy: str
    damage: int  # total counters on it


@dataclass(frozen=True)
class EnemyRemoved:
    enemy: str
    defeated_by: int


@dataclass(frozen=True)
class EnemyRetreated:
    enemy: str
    to: Hex


@dataclass(frozen=True)
class SurvivorEscaped:
    seat: int
    to: Hex


@dataclass(frozen=True)
class CombatEnded:
    seat: int


@dataclass(frozen=True)
class CostDeclined:
    """A survivor chose not to pay: it suffers the damage, or lets the fire go out."""

    seat: int


# ---------------------------------------------------------------- night and quest


@dataclass(frozen=True)
class NightCardDrawn:
    card: str


@dataclass(frozen=True)
class ThreatDrawn:
    seat: int
    card: str


@dataclass(frozen=True)
class CardDiscarded:
    """A night or threat card goes face up next to its deck."""

    deck: str
    card: str


@dataclass(frozen=True)
class OngoingThreatPlaced:
    seat: int
    card: str
    until_day: int


@dataclass(frozen=True)
class OngoingThreatExpired:
    seat: int
    card: str


@dataclass(frozen=True)
class StageCompleted:
    stage: int


@dataclass(frozen=True)
class StageBegan:
    stage: int


@dataclass(frozen=True)
class CluesGained:
    amount: int


@dataclass(frozen=True)
class QuestActionUnlocked:
    action: str


@dataclass(frozen=True)
class GameEnded:
    won: bool  # at least one survivor won
    reason: str


Event = (
    StepsQueued
    | StepDone
    | PileFormed
    | DiscardsReshuffled
    | LeaderRolled
    | LeaderChanged
    | CharactersDealt
    | ProjectsDrawn
    | HiddenCardsDealt
    | CharacterChosen
    | CharacterPicked
    | CharactersRevealed
    | DayStarted
    | TurnEnded
    | DayEnded
    | StaminaChanged
    | SurvivorMoved
    | TileRevealed
    | FeatureRevealed
    | ResourceChanged
    | ItemGained
    | ItemLost
    | ItemPlaced
    | ProjectCrafted
    | TradeOpened
    | TradeGoodListed
    | TradeOffered
    | TradeAnswered
    | GoodsTransferred
    | TradeClosed
    | LandmarkInvestigated
    | CardResolved
    | FireChanged
    | ShelterMarked
    | DamageTaken
    | DamageHealed
    | SurvivorEliminated
    | SurvivorWon
    | EnemySpawned
    | MonsterRevealed
    | MonsterMoved
    | FighterVoted
    | FighterChosen
    | CombatStarted
    | SupportPlayed
    | SupportDeclined
    | CombatStageSet
    | CombatRolled
    | RerollRequested
    | DieRerolled
    | DieModified
    | EnemyDamaged
    | EnemyRemoved
    | EnemyRetreated
    | SurvivorEscaped
    | CombatEnded
    | CostDeclined
    | NightCardDrawn
    | ThreatDrawn
    | CardDiscarded
    | OngoingThreatPlaced
    | OngoingThreatExpired
    | StageCompleted
    | StageBegan
    | CluesGained
    | QuestActionUnlocked
    | GameEnded
)
