"""Fold one event into the state; never raises on an event `decide` emitted."""

from __future__ import annotations

from typing import assert_never

from services.games.common.values import replace
from services.games.discover import events as ev
from services.games.discover.content import load
from services.games.discover.state import (
    STAMINA_MAX,
    Combat,
    CombatStage,
    Enemy,
    Phase,
    State,
    Status,
    Survivor,
    Trade,
)


def _surv(state: State, seat: int, **changes: object) -> State:
    return state.with_survivor(replace(state.survivors[seat], **changes))  # type: ignore[arg-type]


def _add(counts: dict[str, int], key: str, amount: int) -> dict[str, int]:
    out = dict(counts)
    out[key] = out.get(key, 0) + amount
    if out[key] <= 0:
        del out[key]
    return out


def _enemy(state: State, enemy_id: str, **changes: object) -> State:
    enemies = tuple(replace(e, **changes) if e.id == enemy_id else e for e in state.enemies)  # type: ignore[arg-type]
    return replace(state, enemies=enemies)


def _combat(state: State, **changes: object) -> State:
    assert state.combat is not None
    return replace(state, combat=replace(state.combat, **changes))  # type: ignore[arg-type]


def _pile(state: State, pile: str, delta: int) -> State:
    piles = dict(state.piles)
    piles[pile] = piles.get(pile, 0) + delta
    return replace(state, piles=piles)


def evolve(state: State, event: ev.Event) -> State:
    """The state after `event`."""
    match event:
        case ev.StepsQueued(steps=steps):
            return replace(state, agenda=steps + state.agenda)
        case ev.StepDone():
            return replace(state, agenda=state.agenda[1:])
        case ev.PileFormed(pile=pile, size=size):
            return replace(state, piles={**state.piles, pile: size})
        case ev.DiscardsReshuffled():
            return _reshuffled(state, event)
        case ev.LeaderRolled():
            return state
        case ev.LeaderChanged(seat=seat):
            return replace(state, leader=seat)
        case ev.CharactersDealt(seat=seat, characters=chars):
            return _pile(_surv(state, seat, offer=chars), "characters", -len(chars))
        case ev.ProjectsDrawn(seat=seat, projects=projects):
            hand = state.survivors[seat].hand + projects
            return _pile(_surv(state, seat, hand=hand), "projects", -len(projects))
        case ev.HiddenCardsDealt() | ev.CharacterPicked():
            return state  # only ever shown to other viewers, never folded
        case ev.CharacterChosen(seat=seat, character=character):
            return _surv(state, seat, chosen=character)
        case ev.CharactersRevealed(characters=chars):
            for seat, character in enumerate(chars):
                state = _surv(state, seat, character=character, chosen=character, offer=())
            return state
        case _:
            return _evolve_day(state, event)


def _reshuffled(state: State, event: ev.DiscardsReshuffled) -> State:
    if event.deck == "night":
        return replace(state, night_pile=event.pile, night_discard=())
    return replace(state, threat_pile=event.pile, threat_discard=())


def _evolve_day(state: State, event: ev.Event) -> State:
    match event:
        case ev.DayStarted(day=day, order=order):
            return replace(state, phase=Phase.DAY, day=day, turn_order=order)
        case ev.TurnEnded():
            return replace(state, turn_order=state.turn_order[1:], trade=None)
        case ev.DayEnded():
            return replace(state, phase=Phase.NIGHT, turn_order=())
        case ev.StaminaChanged(seat=seat, stamina=stamina):
            return _surv(state, seat, stamina=max(0, min(STAMINA_MAX, stamina)))
        case ev.SurvivorMoved(seat=seat, to=to):
            return _surv(state, seat, space=to)
        case ev.TileRevealed(slot=slot, tile=tile):
            return _tile_revealed(state, slot, tile)
        case ev.FeatureRevealed(space=space, token=token):
            features = {h: p for h, p in state.features.items() if h != space}
            return _pile(replace(state, features=features), f"feature:{load(state.scenario).features[token][0]}", -1)
        case ev.ResourceChanged(seat=seat, resource=resource, amount=amount):
            return _surv(state, seat, resources=_add(state.survivors[seat].resources, resource, amount))
        case ev.ItemGained(seat=seat, item=item):
            return _surv(state, seat, items=(*state.survivors[seat].items, item))
        case ev.ItemLost(seat=seat, item=item):
            return _surv(state, seat, items=tuple(i for i in state.survivors[seat].items if i != item))
        case ev.ItemPlaced(item=item, space=space):
            return replace(state, placed={**state.placed, item: space})
        case ev.ProjectCrafted(seat=seat, project=project, from_hand=from_hand):
            if not from_hand:
                return state
            hand = tuple(p for p in state.survivors[seat].hand if p != project)
            return replace(_surv(state, seat, hand=hand), table=(*state.table, project))
        case _:
            return _evolve_goods(state, event)


def _tile_revealed(state: State, slot: int, tile: int) -> State:
    tiles = {**state.tiles, slot: tile}
    state = replace(state, tiles=tiles)
    centre = load(state.scenario).slots[slot].centre
    features = dict(state.features)
    fires = dict(state.fires)
    for spec in load(state.scenario).tiles[tile].spaces:
        if spec.feature_pool:
            features[centre + spec.hex] = spec.feature_pool
        if spec.fire:
            fires[centre + spec.hex] = True
    piles = _pile(state, f"tiles:{load(state.scenario).slots[slot].group}", -1).piles
    return replace(state, features=features, fires=fires, piles=piles)


def _evolve_goods(state: State, event: ev.Event) -> State:
    match event:
        case ev.TradeOpened(partner=partner):
            return replace(state, trade=Trade(partner, (), (), False))
        case ev.TradeGoodListed():
            return _listed(state, event)
        case ev.TradeOffered():
            assert state.trade is not None
            return replace(state, trade=replace(state.trade, offered=True))
        case ev.TradeAnswered():
            return state  # the goods move with GoodsTransferred, then TradeClosed
        case ev.GoodsTransferred(giver=giver, taker=taker, resource=resource, item=item):
            return _transfer(state, giver, taker, resource, item)
        case ev.TradeClosed():
            return replace(state, trade=None)
        case ev.LandmarkInvestigated(landmark=landmark):
            return replace(state, investigated=state.investigated | {landmark})
        case ev.CardResolved(number=number):
            return replace(state, resolved=state.resolved | {number})
        case ev.FireChanged(space=space, lit=lit):
            return replace(state, fires={**state.fires, space: lit})
        case ev.ShelterMarked(space=space):
            return replace(state, shelters=state.shelters | {space})
        case ev.DamageTaken(seat=seat, damage=damage):
            return _surv(state, seat, damage=(*state.survivors[seat].damage, damage))
        case ev.DamageHealed(seat=seat, damage=damage):
            dmg = list(state.survivors[seat].damage)
            dmg.remove(damage)
            return _surv(state, seat, damage=tuple(dmg))
        case ev.SurvivorEliminated(seat=seat):
            return _leaves(state, seat, Status.CASUALTY)
        case ev.SurvivorWon(seat=seat):
            return _leaves(state, seat, Status.WON)
        case _:
            return _evolve_monsters(state, event)


def _listed(state: State, event: ev.TradeGoodListed) -> State:
    trade = state.trade
    assert trade is not None
    good = f"item:{event.item}" if event.item else event.resource
    if event.giver == trade.partner:
        return replace(state, trade=replace(trade, asks=(*trade.asks, good)))
    return replace(state, trade=replace(trade, gives=(*trade.gives, good)))


def _transfer(state: State, giver: int, taker: int, resource: str, item: int) -> State:
    if item:
        state = _surv(state, giver, items=tuple(i for i in state.survivors[giver].items if i != item))
        return _surv(state, taker, items=(*state.survivors[taker].items, item))
    state = _surv(state, giver, resources=_add(state.survivors[giver].resources, resource, -1))
    return _surv(state, taker, resources=_add(state.survivors[taker].resources, resource, 1))


def _leaves(state: State, seat: int, status: Status) -> State:
    """A casualty keeps its goods for looting; a winner discards everything (rulebook, End of game)."""
    survivor: Survivor = state.survivors[seat]
    if status is Status.CASUALTY:
        survivor = replace(survivor, status=status, hand=(), ongoing=())
    else:
        survivor = replace(survivor, status=status, hand=(), ongoing=(), resources={}, items=(), support=())
        discard = state.threat_discard + tuple(card for card, _ in state.survivors[seat].ongoing)
        state = replace(state, threat_discard=discard)
    order = tuple(s for s in state.turn_order if s != seat)
    return replace(state.with_survivor(survivor), turn_order=order)


def _evolve_monsters(state: State, event: ev.Event) -> State:
    match event:
        case ev.EnemySpawned(enemy=eid, number=number, space=space, special=special):
            enemy = Enemy(eid, number, space, special, 0)
            return replace(state, enemies=(*state.enemies, enemy), enemy_serial=state.enemy_serial + 1)
        case ev.MonsterRevealed(enemy=eid, number=number):
            return _pile(_enemy(state, eid, number=number), "monsters", -1)
        case ev.MonsterMoved(enemy=eid, to=to) | ev.EnemyRetreated(enemy=eid, to=to):
            return _enemy(state, eid, space=to)
        case ev.FighterVoted(seat=seat, fighter=fighter):
            return replace(state, votes={**state.votes, seat: fighter})
        case ev.FighterChosen(seat=seat):
            return replace(state, fighter=seat, votes={})
        case ev.CombatStarted(seat=seat, enemy=eid, supporters=supporters):
            return replace(state, combat=_new_combat(state, seat, eid, supporters), fighter=-1, votes={})
        case ev.SupportPlayed(card=card):
            return _support_played(state, card)
        case ev.SupportDeclined(seat=seat):
            assert state.combat is not None
            if state.combat.stage is CombatStage.MODIFY:
                return _ability_declined(state, seat)
            return _next_supporter(state)
        case ev.CombatStageSet(stage=stage):
            return _combat(state, stage=stage)
        case ev.CombatRolled(grey=grey, red=red):
            return _combat(state, grey=grey, red=red, stage=CombatStage.MODIFY)
        case _:
            return _evolve_combat(state, event)


def _new_combat(state: State, seat: int, eid: str, supporters: tuple[int, ...]) -> Combat:
    stage = CombatStage.REVEAL if state.enemy(eid).number == 0 else CombatStage.SUPPORT
    if stage is CombatStage.SUPPORT and not supporters:
        stage = CombatStage.READY
    return Combat(seat, eid, stage, supporters, (), 0, 0, 0, 0, (), "")


def _next_supporter(state: State) -> State:
    assert state.combat is not None
    rest = state.combat.supporters[1:]
    return _combat(state, supporters=rest, stage=CombatStage.SUPPORT if rest else CombatStage.READY)


def _ability_declined(state: State, seat: int) -> State:
    """In the dice modification step: the supporter lets its card's "may" ability go unused."""
    assert state.combat is not None
    mine = state.survivors[seat].support
    cards = tuple(f"support:{c}" for c in state.combat.played if c in mine)
    return _combat(state, used=state.combat.used + cards)


def _support_played(state: State, card: str) -> State:
    assert state.combat is not None
    return _next_supporter(_combat(state, played=(*state.combat.played, card)))


def _evolve_combat(state: State, event: ev.Event) -> State:
    match event:
        case ev.RerollRequested(die=die, source=source):
            assert state.combat is not None
            used = state.combat.used + ((source,) if source.startswith(("item:", "support:")) else ())
            return _combat(state, reroll=die, stage=CombatStage.REROLL, used=used)
        case ev.DieRerolled(die=die, value=value):
            return _combat(state, **{die: value}, reroll="", stage=CombatStage.MODIFY)
        case ev.DieModified(die=die, amount=amount, source=source):
            assert state.combat is not None
            used = state.combat.used + ((source,) if source.startswith(("item:", "support:")) else ())
            key = f"{die}_mod"
            return _combat(state, **{key: getattr(state.combat, key) + amount}, used=used)
        case ev.EnemyDamaged(enemy=eid, damage=damage):
            return _enemy(state, eid, damage=damage)
        case ev.EnemyRemoved(enemy=eid):
            return replace(state, enemies=tuple(e for e in state.enemies if e.id != eid))
        case ev.SurvivorEscaped(seat=seat, to=to):
            return _surv(state, seat, space=to)
        case ev.CombatEnded():
            return replace(state, combat=None)
        case ev.CostDeclined():
            return state  # the damage or the fire going out follows as its own event
        case _:
            return _evolve_night(state, event)


def _evolve_night(state: State, event: ev.Event) -> State:
    match event:
        case ev.NightCardDrawn(card=card):
            pile = "night:I" if state.piles.get("night:I", 0) > 0 else state.night_pile
            return _pile(state, pile, -1)
        case ev.ThreatDrawn():
            return _pile(state, state.threat_pile, -1)
        case ev.CardDiscarded(deck="night", card=card):
            return replace(state, night_discard=(*state.night_discard, card))
        case ev.CardDiscarded(card=card):
            return replace(state, threat_discard=(*state.threat_discard, card))
        case ev.OngoingThreatPlaced(seat=seat, card=card, until_day=day):
            return _surv(state, seat, ongoing=(*state.survivors[seat].ongoing, (card, day)))
        case ev.OngoingThreatExpired(seat=seat, card=card):
            ongoing = tuple(o for o in state.survivors[seat].ongoing if o[0] != card)
            return replace(_surv(state, seat, ongoing=ongoing), threat_discard=(*state.threat_discard, card))
        case ev.StageCompleted():
            return replace(state, stage_complete=True, stages_done=state.stages_done + 1)
        case ev.StageBegan(stage=stage):
            return replace(state, stage=stage, stage_complete=False)
        case ev.CluesGained(amount=amount):
            return replace(state, clues=state.clues + amount)
        case ev.QuestActionUnlocked(action=action):
            return replace(state, unlocked=state.unlocked | {action})
        case ev.GameEnded(won=won, reason=reason):
            over = replace(state, phase=Phase.OVER, won=won, end_reason=reason, agenda=(), turn_order=())
            return replace(over, combat=None, trade=None)
        case _:
            assert_never(event)  # type: ignore[arg-type]
