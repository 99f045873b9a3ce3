"""What one seat (or a spectator) may know: everything public plus its own hidden cards."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from services.games.common.values import keep_last, replace, reusable
from services.games.discover import state as st
from services.games.discover.content import load
from services.games.discover.flow import Kind, pending
from services.games.discover.state import Combat, Enemy, Phase, State, Status
from services.games.discover.vocab import DamageType, Hex


@dataclass(frozen=True)
class SurvivorView:
    seat: int
    character: int  # 0 until the characters are revealed
    stamina: int
    damage: tuple[DamageType, ...]
    space: Hex
    status: Status
    resources: dict[str, int]
    items: tuple[int, ...]
    hand_size: int  # project cards are private; only their number is public
    support: tuple[str, ...]
    ongoing: tuple[str, ...]  # ongoing threat cards in front of the survivor
    has_chosen: bool  # picked a character in the secret draft
    ongoing_until: tuple[int, ...]  # the day each ongoing threat card expires at the end of (public)


@dataclass(frozen=True)
class TileView:
    slot: int
    tile: int
    centre: Hex


@dataclass(frozen=True)
class FeatureView:
    """A face-down feature token: only its icon (pool) shows."""

    space: Hex
    pool: str


@dataclass(frozen=True)
class FireView:
    space: Hex
    lit: bool


@dataclass(frozen=True)
class PlacedItemView:
    item: int
    space: Hex


@dataclass(frozen=True)
class View:
    viewer: int  # -1: spectator
    scenario: str
    players: int
    max_days: int
    phase: Phase
    day: int
    leader: int
    turn_order: tuple[int, ...]
    to_act: tuple[int, ...]
    decision: str  # what `to_act` is asked: "turn", "support", "modify", ...
    survivors: tuple[SurvivorView, ...]
    tiles: tuple[TileView, ...]
    features: tuple[FeatureView, ...]
    fires: tuple[FireView, ...]
    shelters: tuple[Hex, ...]
    placed: tuple[PlacedItemView, ...]
    enemies: tuple[Enemy, ...]  # number 0: face down
    piles: dict[str, int]  # cards left per pile, never their order
    night_discard: tuple[str, ...]
    threat_discard: tuple[str, ...]
    table: tuple[int, ...]
    stage: int
    stage_complete: bool
    objective_icons: tuple[int, ...]  # landmarks marked on the current quest card (no effect by themselves)
    stages_done: int
    clues: int
    investigated: tuple[int, ...]
    unlocked: tuple[str, ...]
    combat: Combat | None
    trade_partner: int  # -1: no trade open
    trade_gives: tuple[str, ...]  # the proposal: goods ("wood", "item:3") the active survivor gives
    trade_asks: tuple[str, ...]  # and asks of the partner
    trade_offered: bool  # the proposal waits for the partner's answer
    fighter_votes: dict[int, int]  # survivor -> the survivor it named to fight the monster in its space
    agenda: tuple[st.Step, ...]
    hand: tuple[int, ...]  # the viewer's project cards
    offer: tuple[int, ...]  # the viewer's dealt characters
    chosen: int  # the viewer's secret character pick
    won: bool
    end_reason: str
    resolved: tuple[int, ...]  # exploration cards resolved at least once (their first-time effects are spent)
    fighter: int  # the survivor agreed (or picked) to fight in a shared space; -1: none yet


def view(state: State, viewer: int | None) -> View:
    """The view of `viewer` (a seat, or None for a spectator): the public view of the
    state with the viewer's own hand, offer and choice."""
    me = state.survivors[viewer] if viewer is not None and 0 <= viewer < len(state.survivors) else None
    public = _public_of(state)
    if me is None:
        return public
    return replace(public, viewer=me.seat, hand=me.hand, offer=me.offer, chosen=me.chosen)


# A position holds every seat's view of one state, and they differ only in the viewer's
# own cards: the rest is built once.
@keep_last
def _public_of(state: State) -> View:
    """What everyone sees of `state` (a spectator's view): no viewer, no hand."""
    wait = pending(state)
    return View(
        viewer=-1,
        scenario=state.scenario,
        players=state.players,
        max_days=state.max_days,
        phase=state.phase,
        day=state.day,
        leader=state.leader,
        turn_order=state.turn_order,
        to_act=wait.seats if wait.kind is Kind.DECIDE else (),
        decision=wait.decision,
        survivors=tuple(_survivor(s) for s in state.survivors),
        tiles=reusable(_tiles(state.scenario, tuple(sorted(state.tiles.items())))),
        features=reusable(_features(tuple(sorted(state.features.items())))),
        fires=reusable(_fires(tuple(sorted(state.fires.items())))),
        shelters=tuple(sorted(state.shelters)),
        placed=reusable(_placed(tuple(sorted(state.placed.items())))),
        enemies=reusable(state.enemies),  # the state's own: the same tuple while no enemy changes
        piles=dict(state.piles),
        night_discard=state.night_discard,
        threat_discard=state.threat_discard,
        table=state.table,
        stage=state.stage,
        stage_complete=state.stage_complete,
        objective_icons=load(state.scenario).stages[state.stage].objective_icons,
        stages_done=state.stages_done,
        clues=state.clues,
        investigated=tuple(sorted(state.investigated)),
        unlocked=tuple(sorted(state.unlocked)),
        combat=state.combat,
        trade_partner=state.trade.partner if state.trade else -1,
        trade_gives=state.trade.gives if state.trade else (),
        trade_asks=state.trade.asks if state.trade else (),
        trade_offered=bool(state.trade and state.trade.offered),
        fighter_votes=dict(state.votes),
        agenda=reusable(state.agenda),
        hand=(),
        offer=(),
        chosen=0,
        won=state.won,
        end_reason=state.end_reason,
        resolved=tuple(sorted(state.resolved)),
        fighter=state.fighter,
    )


# The map's public parts, built once for what they show: the views of one state, and of
# the states after it while the map is unchanged, give the very same tuples, named
# reusable, which the codec then encodes once (protocodec.sharing). Bounded by the
# matches a process plays.
MAPS_KEPT = 256


@lru_cache(maxsize=MAPS_KEPT)
def _tiles(scenario: str, revealed: tuple[tuple[int, int], ...]) -> tuple[TileView, ...]:
    slots = load(scenario).slots
    return tuple(TileView(slot, tile, slots[slot].centre) for slot, tile in revealed)


@lru_cache(maxsize=MAPS_KEPT)
def _features(lying: tuple[tuple[Hex, str], ...]) -> tuple[FeatureView, ...]:
    return tuple(FeatureView(h, p) for h, p in lying)


@lru_cache(maxsize=MAPS_KEPT)
def _fires(fires: tuple[tuple[Hex, bool], ...]) -> tuple[FireView, ...]:
    return tuple(FireView(h, lit) for h, lit in fires)


@lru_cache(maxsize=MAPS_KEPT)
def _placed(placed: tuple[tuple[int, Hex], ...]) -> tuple[PlacedItemView, ...]:
    return tuple(PlacedItemView(i, h) for i, h in placed)


def _survivor(s: st.Survivor) -> SurvivorView:
    return SurvivorView(
        seat=s.seat,
        character=s.character,
        stamina=s.stamina,
        damage=s.damage,
        space=s.space,
        status=s.status,
        resources=dict(s.resources),
        items=s.items,
        hand_size=len(s.hand),
        support=s.support,
        ongoing=tuple(card for card, _ in s.ongoing),
        has_chosen=bool(s.chosen),
        ongoing_until=tuple(day for _, day in s.ongoing),
    )
