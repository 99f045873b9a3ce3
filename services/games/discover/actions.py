"""What a survivor can do: imperative, one small step each, so legal actions stay finite."""

from __future__ import annotations

from dataclasses import dataclass

from services.games.discover.vocab import DamageType, Hex

# ---------------------------------------------------------------- setup and night


@dataclass(frozen=True)
class ChooseCharacter:
    character: int


@dataclass(frozen=True)
class PassLeadership:
    """The leader hands the marker to `seat` (their own seat keeps it)."""

    seat: int


# ---------------------------------------------------------------- day actions


@dataclass(frozen=True)
class Gather:
    """Gather the token in your space (free right after Move and Gather)."""


@dataclass(frozen=True)
class SkipGather:
    """Decline the free Gather after Move and Gather."""


@dataclass(frozen=True)
class Move:
    """Move and Gather: enter an adjacent revealed space, paying its terrain cost."""

    to: Hex


@dataclass(frozen=True)
class Explore:
    """Turn face up the face-down tile in `slot`, next to your space."""

    slot: int


@dataclass(frozen=True)
class Cook:
    meat: int
    dirty_water: int


@dataclass(frozen=True)
class RestartFire:
    pass


@dataclass(frozen=True)
class Craft:
    project: int


@dataclass(frozen=True)
class Trade:
    """Open a trade with a survivor in your space (the action's stamina is paid now)."""

    partner: int


@dataclass(frozen=True)
class TradeGive:
    """Add one resource (or the item, when `item` is not 0) you would give to the proposal."""

    resource: str
    item: int


@dataclass(frozen=True)
class TradeTake:
    """Add one resource (or the item) you ask the partner for to the proposal."""

    resource: str
    item: int


@dataclass(frozen=True)
class OfferTrade:
    """Put the proposal to the partner, who accepts or declines it."""


@dataclass(frozen=True)
class EndTrade:
    """Withdraw: close the trade without exchanging anything."""


@dataclass(frozen=True)
class AcceptTrade:
    """The partner agrees: the goods of the proposal change hands."""


@dataclass(frozen=True)
class DeclineTrade:
    """The partner refuses: nothing changes hands."""


@dataclass(frozen=True)
class Investigate:
    pass


@dataclass(frozen=True)
class Recover:
    """Heal one damage of `damage`, paying its cure."""

    damage: DamageType


@dataclass(frozen=True)
class UseItem:
    """Card Action printed on an item you hold."""

    item: int


@dataclass(frozen=True)
class UseQuestAction:
    """Card Action unlocked by a quest or exploration card."""

    action: str


@dataclass(frozen=True)
class Loot:
    """Take one resource (or the item, when `item` is not 0) from a casualty in your space."""

    seat: int
    resource: str
    item: int


@dataclass(frozen=True)
class UseKeyItem:
    """Resolve the key item's exploration card instead of the one drawn."""

    item: int


@dataclass(frozen=True)
class DeclineKeyItem:
    pass


@dataclass(frozen=True)
class EndTurn:
    pass


# ---------------------------------------------------------------- costs a survivor may refuse


@dataclass(frozen=True)
class PayCost:
    """Pay what a card asks (upkeep, or wood to keep a fire lit)."""


@dataclass(frozen=True)
class DeclineCost:
    """Do not pay: suffer the damage, or let the fire go out."""


# ---------------------------------------------------------------- monsters and combat


@dataclass(frozen=True)
class ChooseFighter:
    """Name the survivor who fights (a survivor in the space agreeing, or the leader deciding)."""

    seat: int


@dataclass(frozen=True)
class ChooseEnemy:
    enemy: str


@dataclass(frozen=True)
class ChooseSpace:
    """Pick a space: a monster's next step, a spawn space or a retreat space."""

    space: Hex


@dataclass(frozen=True)
class PlaySupport:
    card: str


@dataclass(frozen=True)
class DeclineSupport:
    pass


@dataclass(frozen=True)
class RollCombat:
    pass


@dataclass(frozen=True)
class Escape:
    """Escape from combat with a card that allows it, moving to `to`."""

    to: Hex


@dataclass(frozen=True)
class SpendResource:
    """wood: re-roll grey; stone: re-roll red; poison: +1 grey; salvage: -1 red."""

    resource: str


@dataclass(frozen=True)
class UseCombatItem:
    item: int


@dataclass(frozen=True)
class UseSupportCard:
    card: str


@dataclass(frozen=True)
class ResolveCombat:
    """Stop modifying: inflict damage."""


@dataclass(frozen=True)
class GiveReward:
    """Give one reward resource of a defeated enemy to a supporter."""

    seat: int
    resource: str


@dataclass(frozen=True)
class KeepRewards:
    """Keep the rest of the reward."""


Action = (
    ChooseCharacter
    | PassLeadership
    | Gather
    | SkipGather
    | Move
    | Explore
    | Cook
    | RestartFire
    | Craft
    | Trade
    | TradeGive
    | TradeTake
    | OfferTrade
    | EndTrade
    | AcceptTrade
    | DeclineTrade
    | Investigate
    | Recover
    | UseItem
    | UseQuestAction
    | Loot
    | UseKeyItem
    | DeclineKeyItem
    | EndTurn
    | PayCost
    | DeclineCost
    | ChooseFighter
    | ChooseEnemy
    | ChooseSpace
    | PlaySupport
    | DeclineSupport
    | RollCombat
    | Escape
    | SpendResource
    | UseCombatItem
    | UseSupportCard
    | ResolveCombat
    | GiveReward
    | KeepRewards
)
