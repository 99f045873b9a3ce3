"""The state of a Discover game: frozen dataclasses, tuples and read-only dicts."""

from __future__ import annotations

from dataclasses import dataclass, field

from services.games.common.enums import GameEnum
from services.games.common.values import replace
from services.games.discover.vocab import DamageType, Hex

STAMINA_MAX = 12
HEALTH_DIALS = 3  # the fourth damage makes a casualty


class Status(GameEnum):
    ACTIVE = "active"
    CASUALTY = "casualty"
    WON = "won"


class Phase(GameEnum):
    SETUP = "setup"
    DAY = "day"
    NIGHT = "night"
    OVER = "over"


class Source(GameEnum):
    """Where a list of effects is printed."""

    EXPLORATION = "exploration"
    NIGHT = "night"
    THREAT = "threat"
    STAGE = "stage"
    ITEM = "item"
    QUEST_ACTION = "quest_action"


class CombatStage(GameEnum):
    REVEAL = "reveal"  # a face-down token is drawn from the monster pile
    SUPPORT = "support"  # supporters choose a card, one at a time
    READY = "ready"  # the combatant rolls or escapes
    ROLL = "roll"  # both dice are being rolled
    MODIFY = "modify"  # re-rolls and modifiers
    REROLL = "reroll"  # one die is being re-rolled
    RETREAT = "retreat"  # the combatant picks the fallback retreat space


# ---------------------------------------------------------------- agenda steps


@dataclass(frozen=True)
class Shuffle:
    """Ask the deck service to form `pile` from `cards`."""

    pile: str
    cards: tuple[str, ...]
    keep_order: bool


@dataclass(frozen=True)
class RollLeader:
    seats: tuple[int, ...]


@dataclass(frozen=True)
class DealCharacters:
    seat: int
    count: int


@dataclass(frozen=True)
class DealProjects:
    seat: int
    count: int


@dataclass(frozen=True)
class ChooseCharacters:
    """Every seat picks one of its dealt characters in secret."""


@dataclass(frozen=True)
class DrawTile:
    slot: int


@dataclass(frozen=True)
class RevealFeature:
    seat: int
    space: Hex


@dataclass(frozen=True)
class DrawNight:
    """The leader draws the top night card."""


@dataclass(frozen=True)
class DrawThreat:
    seat: int


@dataclass(frozen=True)
class RunEffects:
    """Resolve effect `index` onward of a card, for `seat`."""

    seat: int
    source: Source
    key: str  # card number or id within `source`
    index: int
    first: bool  # an exploration card resolved for the first time


@dataclass(frozen=True)
class MoveMonsters:
    """Move each listed monster `steps` spaces, one at a time; `toward_seat` -1: nearest survivor."""

    movers: tuple[str, ...]
    steps_left: int  # of the first mover
    steps: int
    toward_seat: int
    choices: tuple[Hex, ...]  # tied next spaces of the first mover: the leader picks


@dataclass(frozen=True)
class PickMover:
    """The leader picks which of the tied nearest monsters moves toward `seat`."""

    seat: int
    steps: int
    candidates: tuple[str, ...]


@dataclass(frozen=True)
class PickSpawn:
    """The leader picks the spawn space among tied candidates."""

    special: bool
    enemy: int
    candidates: tuple[Hex, ...]


@dataclass(frozen=True)
class FreeGather:
    """The optional free Gather after Move and Gather."""

    seat: int


@dataclass(frozen=True)
class OfferKeyItem:
    """The survivor may use a key item to resolve another exploration card than `number`."""

    seat: int
    number: int


@dataclass(frozen=True)
class Cost:
    resource: str  # or "stamina"
    amount: int


@dataclass(frozen=True)
class PayOrSuffer:
    """The survivor pays `pay` or suffers `amount` damage: its choice."""

    seat: int
    pay: tuple[Cost, ...]
    damage: DamageType
    amount: int


@dataclass(frozen=True)
class FeedFire:
    """The lit fire in `space` goes out unless one of `seats` (survivors there, from the leader) pays `wood`."""

    space: Hex
    wood: int
    seats: tuple[int, ...]


@dataclass(frozen=True)
class ShareRewards:
    """The combatant keeps the reward `goods` or gives some (or all) to its supporters."""

    seat: int
    supporters: tuple[int, ...]
    goods: tuple[str, ...]  # reward resources still to hand out, one entry per token


@dataclass(frozen=True)
class NightHealing:
    """Night abilities (e.g. heal one thirst) of every survivor."""


@dataclass(frozen=True)
class PassLeader:
    """The leader keeps or passes the tribe-leader marker."""


@dataclass(frozen=True)
class StartDay:
    """A new day begins (or the day cap ends the game)."""


Step = (
    Shuffle
    | RollLeader
    | DealCharacters
    | DealProjects
    | ChooseCharacters
    | DrawTile
    | RevealFeature
    | DrawNight
    | DrawThreat
    | RunEffects
    | MoveMonsters
    | PickMover
    | PickSpawn
    | FreeGather
    | OfferKeyItem
    | PayOrSuffer
    | FeedFire
    | ShareRewards
    | NightHealing
    | PassLeader
    | StartDay
)

# ---------------------------------------------------------------- pieces


@dataclass(frozen=True)
class Survivor:
    seat: int
    character: int  # 0 until characters are revealed
    offer: tuple[int, ...]  # characters dealt, private
    chosen: int  # the secret pick before the reveal, private
    stamina: int
    damage: tuple[DamageType, ...]
    space: Hex
    status: Status
    resources: dict[str, int]
    items: tuple[int, ...]
    hand: tuple[int, ...]  # project cards, private
    support: tuple[str, ...]  # combat-support cards held
    ongoing: tuple[tuple[str, int], ...]  # (threat card, day it expires at the end of)


@dataclass(frozen=True)
class Enemy:
    """An enemy token on the map: a monster token, a special monster or a flipped feature enemy."""

    id: str
    number: int  # enemy card number; 0 while face down
    space: Hex
    special: bool
    damage: int


@dataclass(frozen=True)
class Combat:
    seat: int
    enemy: str
    stage: CombatStage
    supporters: tuple[int, ...]  # still to decide, in order
    played: tuple[str, ...]  # support cards played this combat
    grey: int  # faces shown
    red: int
    grey_mod: int
    red_mod: int
    used: tuple[str, ...]  # items ("item:N") and support cards used this combat
    reroll: str  # die being re-rolled ("grey" | "red"), else ""


@dataclass(frozen=True)
class Trade:
    """A trade proposal: goods ("wood", "item:3") the active survivor gives and asks for."""

    partner: int
    gives: tuple[str, ...]
    asks: tuple[str, ...]
    offered: bool  # put to the partner, who accepts or declines


@dataclass(frozen=True)
class State:
    scenario: str
    players: int  # M: survivors who started the game
    max_days: int
    phase: Phase
    day: int
    leader: int
    turn_order: tuple[int, ...]  # survivors still to act today; the first acts now
    survivors: tuple[Survivor, ...]
    tiles: dict[int, int]  # revealed slot -> tile
    features: dict[Hex, str]  # face-down feature token pool lying on a space
    fires: dict[Hex, bool]  # fire token -> lit
    shelters: frozenset[Hex]
    placed: dict[int, Hex]  # items left in a space (shelter, beacon)
    enemies: tuple[Enemy, ...]
    enemy_serial: int
    piles: dict[str, int]  # pile name -> cards left
    night_pile: str  # current level II pile
    threat_pile: str
    night_discard: tuple[str, ...]
    threat_discard: tuple[str, ...]
    table: tuple[int, ...]  # project cards face up on the table
    stage: int
    stage_complete: bool
    stages_done: int
    clues: int
    investigated: frozenset[int]  # landmarks investigated at least once
    resolved: frozenset[int]  # exploration cards resolved at least once
    unlocked: frozenset[str]  # quest card actions available
    agenda: tuple[Step, ...]
    combat: Combat | None = None
    fighter: int = -1  # agreed by the survivors (or picked by the leader) when several share a monster's space
    votes: dict[int, int] = field(default_factory=dict)  # survivor -> the survivor it names to fight
    trade: Trade | None = None
    won: bool = False
    end_reason: str = ""

    def survivor(self, seat: int) -> Survivor:
        return self.survivors[seat]

    def with_survivor(self, survivor: Survivor) -> State:
        """The state with one survivor replaced."""
        survivors = list(self.survivors)
        survivors[survivor.seat] = survivor
        return replace(self, survivors=tuple(survivors))

    def active(self) -> tuple[int, ...]:
        """Seats of survivors still on the map (neither casualty nor winner)."""
        return tuple(s.seat for s in self.survivors if s.status is Status.ACTIVE)

    def enemy(self, enemy_id: str) -> Enemy:
        return next(e for e in self.enemies if e.id == enemy_id)
