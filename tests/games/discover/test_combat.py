"""Combat ("Combate"): dice, modifiers, damage, retreat, escape, support and lethal enemies."""

from __future__ import annotations

import pytest

from services.games.common.chance import DrawCards, RollDice
from services.games.common.engine import IllegalAction
from services.games.discover import ENGINE
from services.games.discover import actions as a
from services.games.discover import events as ev
from services.games.discover import state as st
from services.games.discover.decide import advance, fold
from services.games.discover.state import CombatStage
from services.games.discover.vocab import DamageType, Hex
from tests.games.discover.builders import CAMP, NORTH, SOUTH, act, day, draw, enemy, game_events, roll, survivor

BOAR, DOG, PANTHER = 1, 4, 7  # defence/attack/health: 6/9/2, 6/8/1, 8/7/2 (lethal)


def fighting(state: st.State) -> st.State:
    """Let the encounter in the state start its combat."""
    return fold(state, advance(state))


def rolled(state: st.State, grey: int, red: int) -> st.State:
    state, _ = act(state, 0, a.RollCombat())
    state, _ = roll(state, grey, red)
    return state


def boar_fight(**survivor_changes: object) -> st.State:
    state = survivor(enemy(day(1), "X1", BOAR, CAMP), 0, **survivor_changes)
    return fighting(state)


def test_both_dice_are_rolled_through_a_chance_request() -> None:
    state, events = act(boar_fight(), 0, a.RollCombat())
    assert ENGINE.to_move(state).chance == RollDice(2, 12)
    _, events = roll(state, 4, 5)
    assert events == [ev.CombatRolled(4, 5)]


def test_grey_die_at_least_defence_damages_the_enemy_then_it_retreats_by_the_compass() -> None:
    _, events = act(rolled(boar_fight(), 6, 1), 0, a.ResolveCombat())
    assert events == [ev.EnemyDamaged("X1", 1), ev.EnemyRetreated("X1", NORTH), ev.CombatEnded(0)]


def test_red_die_at_least_attack_damages_the_combatant() -> None:
    _, events = act(rolled(boar_fight(), 2, 9), 0, a.ResolveCombat())  # red 9: south-east
    assert events == [ev.DamageTaken(0, DamageType.PHYSICAL), ev.EnemyRetreated("X1", Hex(1, 0)), ev.CombatEnded(0)]


def test_an_enemy_with_counters_equal_to_its_health_is_defeated_and_pays_its_reward() -> None:
    state = fighting(enemy(day(1), "X1", BOAR, CAMP, damage=1))
    after, events = act(rolled(state, 7, 12), 0, a.ResolveCombat())
    assert after.enemies == () and after.piles["monsters"] == state.piles["monsters"]  # the token leaves the game
    assert events == [
        ev.EnemyDamaged("X1", 2),
        ev.EnemyRemoved("X1", 0),
        ev.ResourceChanged(0, "meat", 2),
        ev.DamageTaken(0, DamageType.PHYSICAL),  # suffered even though the enemy was defeated
        ev.CombatEnded(0),
    ]


def test_retreat_falls_back_to_a_space_the_combatant_picks() -> None:
    state = fighting(survivor(enemy(day(1), "X1", BOAR, NORTH), 0, space=NORTH))
    state, events = act(rolled(state, 1, 1), 0, a.ResolveCombat())  # north of NORTH is unexplored
    assert events == [ev.CombatStageSet(CombatStage.RETREAT)]
    assert ENGINE.legal_actions(state, 0) == [
        a.ChooseSpace(Hex(1, -1)),
        a.ChooseSpace(CAMP),
        a.ChooseSpace(Hex(-1, 0)),
    ]
    _, events = act(state, 0, a.ChooseSpace(CAMP))
    assert events == [ev.EnemyRetreated("X1", CAMP), ev.CombatEnded(0)]


def test_an_enemy_never_retreats_onto_a_survivor() -> None:
    state = survivor(enemy(day(2), "X1", BOAR, CAMP), 1, space=NORTH)
    state = fighting(state)
    state, _ = act(state, 1, a.DeclineSupport())
    state, events = act(rolled(state, 1, 1), 0, a.ResolveCombat())  # north holds survivor 1
    assert events == [ev.CombatStageSet(CombatStage.RETREAT)]
    assert a.ChooseSpace(NORTH) not in ENGINE.legal_actions(state, 0)


def test_wood_rerolls_grey_and_stone_rerolls_red_as_often_as_paid() -> None:
    state = rolled(boar_fight(resources={"wood": 1, "stone": 2}), 2, 11)
    state, events = act(state, 0, a.SpendResource("wood"))
    assert events == [ev.ResourceChanged(0, "wood", -1), ev.RerollRequested("grey", "wood")]
    assert ENGINE.to_move(state).chance == RollDice(1, 12)
    state, events = roll(state, 8)
    assert events == [ev.DieRerolled("grey", 8)]
    for value in (12, 3):
        state, _ = act(state, 0, a.SpendResource("stone"))
        state, events = roll(state, value)
        assert events == [ev.DieRerolled("red", value)]
    assert refused(state, a.SpendResource("stone")) == "discover.combat.modify"


def test_poison_adds_one_to_grey_and_salvage_takes_one_from_red() -> None:
    state = rolled(boar_fight(resources={"poison": 1, "salvage": 1}), 5, 9)
    state, events = act(state, 0, a.SpendResource("poison"))
    assert events == [ev.ResourceChanged(0, "poison", -1), ev.DieModified("grey", 1, "poison")]
    state, events = act(state, 0, a.SpendResource("salvage"))
    assert events == [ev.ResourceChanged(0, "salvage", -1), ev.DieModified("red", -1, "salvage")]
    _, events = act(state, 0, a.ResolveCombat())
    assert events[0] == ev.EnemyDamaged("X1", 1) and not [e for e in events if isinstance(e, ev.DamageTaken)]


def refused(state: st.State, action: a.Action, seat: int = 0) -> str:
    with pytest.raises(IllegalAction) as error:
        ENGINE.decide(state, seat, action)
    return error.value.rule


def test_each_item_is_used_once_per_combat() -> None:
    state = rolled(boar_fight(items=(2,)), 5, 1)
    state, events = act(state, 0, a.UseCombatItem(2))
    assert events == [ev.DieModified("grey", 1, "item:2")]
    assert refused(state, a.UseCombatItem(2)) == "discover.combat.modify"


def test_survivors_within_two_spaces_support_in_order_from_the_combatants_left() -> None:
    state = enemy(day(4), "X1", DOG, CAMP)
    state = survivor(survivor(survivor(state, 1, space=NORTH), 2, space=Hex(0, -3)), 3, space=SOUTH)
    state = fighting(state)
    # Seat 1 sits to the combatant's left (clockwise); seat 2 is three spaces away.
    assert state.combat is not None and state.combat.supporters == (1, 3)
    state, _ = act(state, 1, a.DeclineSupport())
    state, events = act(state, 3, a.PlaySupport("yellow-2"))  # Flanking: +1 grey
    assert events == [ev.SupportPlayed(3, "yellow-2")]
    state, _ = act(state, 0, a.RollCombat())
    _, events = roll(state, 5, 1)
    assert events == [ev.CombatRolled(5, 1), ev.DieModified("grey", 1, "support:yellow-2")]


def agreed(state: st.State, fighter: int, *seats: int) -> st.State:
    """The survivors in the monster's space all name `fighter`."""
    for seat in seats:
        state, _ = act(state, seat, a.ChooseFighter(fighter))
    return state


def test_the_combatant_plays_no_support_card_and_support_cards_return_to_their_owner() -> None:
    state = agreed(fighting(enemy(day(2), "X1", DOG, CAMP)), 0, 0, 1)
    assert ENGINE.to_move(state).seats == (1,)
    state, _ = act(state, 1, a.PlaySupport("blue-1"))
    _, events = act(rolled(state, 12, 1), 0, a.ResolveCombat())
    assert ev.CombatEnded(0) in events
    assert "blue-1" in fold(state, events).survivors[1].support


def test_a_lethal_enemy_fights_on_against_the_survivor_to_the_left() -> None:
    state = agreed(fighting(enemy(day(2), "X1", PANTHER, CAMP)), 0, 0, 1)
    state, _ = act(state, 1, a.DeclineSupport())
    _, events = act(rolled(state, 1, 1), 0, a.ResolveCombat())
    assert events == [ev.CombatEnded(0), ev.CombatStarted(1, "X1", (0,))]


def test_a_lethal_enemy_fights_the_same_survivor_again_when_alone() -> None:
    state = fighting(enemy(day(1), "X1", PANTHER, CAMP))
    _, events = act(rolled(state, 1, 1), 0, a.ResolveCombat())
    assert events == [ev.CombatEnded(0), ev.CombatStarted(0, "X1", ())]


def test_a_face_down_monster_is_revealed_from_the_monster_pile_when_fought() -> None:
    state = fighting(enemy(day(1), "X1", 0, CAMP))
    assert ENGINE.to_move(state).chance == DrawCards("monsters", 1, None)
    state, events = draw(state, "monsters", "M04a")
    assert events == [ev.MonsterRevealed("X1", DOG), ev.CombatStageSet(CombatStage.READY)]


def test_a_feature_enemy_that_survives_stays_on_the_map_as_an_enemy_token() -> None:
    state = survivor(day(1), 0, space=NORTH)
    state, _ = act(state, 0, a.Gather())
    state, _ = draw(state, "feature:tree", "tree-29")  # enemy 9
    state, _ = act(rolled(state, 1, 1), 0, a.ResolveCombat())
    state, _ = act(state, 0, a.ChooseSpace(CAMP))
    assert state.enemies == (st.Enemy("F1", 9, CAMP, False, 0),)


def test_worked_example_modifying_dice_then_retreating_south() -> None:
    """Grey 5 and red 10 against a boar (6/9): poison makes the hit, salvage is not enough,
    a stone re-roll shows 4; the boar takes a counter and retreats south (red face 4)."""
    state = rolled(boar_fight(resources={"poison": 1, "salvage": 1, "stone": 1}), 5, 10)
    for resource in ("poison", "salvage", "stone"):
        state, _ = act(state, 0, a.SpendResource(resource))
    state, _ = roll(state, 4)
    _, events = act(state, 0, a.ResolveCombat())
    assert game_events(events) == [ev.EnemyDamaged("X1", 1), ev.EnemyRetreated("X1", SOUTH), ev.CombatEnded(0)]


def test_an_enemy_with_a_dash_attack_never_damages(monkeypatch: pytest.MonkeyPatch) -> None:
    from services.games.discover import combat, content

    spec = content._enemy(
        {"number": 1, "name": "Shy Boar", "defence": 6, "attack": "-", "health": 2, "lethal": False,
         "special": False, "rewards": {}}
    )  # fmt: skip
    assert spec.attack is None
    monkeypatch.setattr(combat, "_spec", lambda state, c: spec)
    _, events = act(rolled(boar_fight(), 1, 12), 0, a.ResolveCombat())
    assert not [e for e in events if isinstance(e, ev.DamageTaken)]


# ---------------------------------------------------------------- Escapar del combate


ROPE, PATHFINDER = 15, 8  # stand-in escape cards: an item and a character ability, 1 stamina each


def test_without_a_card_that_allows_it_there_is_no_escape() -> None:
    """Escapar del combate: "Algunas cartas permiten a los supervivientes escapar"; no card, no escape."""
    state = boar_fight()
    assert not [x for x in ENGINE.legal_actions(state, 0) if isinstance(x, a.Escape)]
    assert refused(state, a.Escape(NORTH)) == "discover.combat.ready"


def test_an_item_that_allows_escape_moves_the_survivor_and_skips_the_rest_of_the_combat() -> None:
    """Escapar del combate: move to an adjacent space without a monster; no damage, no retreat."""
    state = boar_fight(items=(ROPE,))
    state = enemy(state, "X2", DOG, SOUTH)
    escapes = [x for x in ENGINE.legal_actions(state, 0) if isinstance(x, a.Escape)]
    assert a.Escape(NORTH) in escapes and a.Escape(SOUTH) not in escapes  # south holds a monster
    state, events = act(state, 0, a.Escape(NORTH))
    assert events == [ev.StaminaChanged(0, 11), ev.SurvivorEscaped(0, NORTH), ev.CombatEnded(0)]
    assert state.enemy("X1").space == CAMP and state.enemy("X1").damage == 0


def test_a_character_ability_that_allows_escape_pays_what_the_card_says() -> None:
    state = fighting(enemy(day(1, characters=(PATHFINDER,)), "X1", BOAR, CAMP))
    _, events = act(state, 0, a.Escape(NORTH))
    assert events[0] == ev.StaminaChanged(0, 11)
    tired = survivor(state, 0, stamina=0)
    assert refused(tired, a.Escape(NORTH)) == "discover.combat.ready"  # the card's cost cannot be paid


def test_escaping_a_lethal_enemy_does_not_move_the_survivor_and_the_enemy_fights_on() -> None:
    """Enemigos letales: the escape ends the combat but the survivor stays; alone, it is fought again."""
    state = fighting(enemy(day(1), "X1", PANTHER, CAMP))
    state = survivor(state, 0, items=(ROPE,))
    assert [x for x in ENGINE.legal_actions(state, 0) if isinstance(x, a.Escape)] == [a.Escape(CAMP)]
    assert refused(state, a.Escape(NORTH)) == "discover.combat.ready"
    state, events = act(state, 0, a.Escape(CAMP))
    assert events == [ev.StaminaChanged(0, 11), ev.CombatEnded(0), ev.CombatStarted(0, "X1", ())]
    assert state.survivors[0].space == CAMP


def test_escaping_a_lethal_enemy_passes_the_fight_to_the_survivor_on_the_left() -> None:
    state = agreed(fighting(enemy(day(2), "X1", PANTHER, CAMP)), 0, 0, 1)
    state = survivor(state, 0, items=(ROPE,))
    state, _ = act(state, 1, a.DeclineSupport())
    _, events = act(state, 0, a.Escape(CAMP))
    assert events == [ev.StaminaChanged(0, 9), ev.CombatEnded(0), ev.CombatStarted(1, "X1", (0,))]


# ---------------------------------------------------------------- rewards (Combate de apoyo)


def _won_with_supporters() -> st.State:
    """Seat 0 defeats a wounded boar (reward: 2 meat) with seat 1 beside it and seat 2 three spaces away."""
    state = enemy(day(3), "X1", BOAR, NORTH, damage=1)
    state = survivor(survivor(survivor(state, 0, space=NORTH), 1, space=CAMP), 2, space=Hex(0, 2))
    state = fighting(state)
    state, _ = act(state, 1, a.DeclineSupport())
    state, _ = act(rolled(state, 7, 1), 0, a.ResolveCombat())
    return state


def test_the_combatant_decides_how_to_split_the_reward_among_its_supporters() -> None:
    """Combate de apoyo: "el combatiente puede quedarse con las recompensas o dar algunas (o todas)"."""
    state = _won_with_supporters()
    assert state.survivors[0].resources["meat"] == 2
    assert ENGINE.to_move(state).seats == (0,)
    assert ENGINE.legal_actions(state, 0) == [a.GiveReward(1, "meat"), a.KeepRewards()]  # seat 2 is too far
    assert refused(state, a.GiveReward(2, "meat")) == "discover.combat.share_rewards"
    assert refused(state, a.GiveReward(1, "food")) == "discover.combat.share_rewards"  # not part of the reward
    state, events = act(state, 0, a.GiveReward(1, "meat"))
    assert game_events(events) == [ev.GoodsTransferred(0, 1, "meat", 0)]
    state, events = act(state, 0, a.GiveReward(1, "meat"))
    assert game_events(events) == [ev.GoodsTransferred(0, 1, "meat", 0)]
    assert state.survivors[1].resources["meat"] == 2 and "meat" not in state.survivors[0].resources
    assert ENGINE.to_move(state).seats == (0,) and state.agenda == ()  # back to the day turn


def test_the_combatant_may_keep_the_whole_reward() -> None:
    state, events = act(_won_with_supporters(), 0, a.KeepRewards())
    assert game_events(events) == [] and state.survivors[0].resources["meat"] == 2
    assert not [s for s in state.agenda if isinstance(s, st.ShareRewards)]


def test_a_combatant_without_supporters_keeps_the_reward_without_being_asked() -> None:
    state = fighting(enemy(day(1), "X1", BOAR, CAMP, damage=1))
    state, _ = act(rolled(state, 7, 1), 0, a.ResolveCombat())
    assert not state.agenda and ENGINE.to_move(state).seats == (0,)
    assert state.survivors[0].resources["meat"] == 2


# Combate de apoyo: "Cada partidario puede usar la habilidad de su tarjeta durante el paso de
# modificación de dados. Los partidarios deben usar la habilidad a menos que use la palabra 'puede'."
STEADY_HANDS = "blue-3"  # seat 1's re-roll card: "puede volver a tirar el dado rojo" (stand-in text)


def _supported_roll(grey: int, red: int, card: str) -> st.State:
    """Seat 0 fights a dog at camp; seat 1, one space away, has played `card`; the dice are rolled."""
    state = fighting(survivor(enemy(day(2), "X1", DOG, CAMP), 1, space=NORTH))
    state, _ = act(state, 1, a.PlaySupport(card))
    state, _ = act(state, 0, a.RollCombat())
    state, _ = roll(state, grey, red)
    return state


def test_a_played_re_roll_card_is_its_supporters_decision_not_the_combatants() -> None:
    state = _supported_roll(3, 9, STEADY_HANDS)
    assert ENGINE.to_move(state).seats == (1,)
    assert ENGINE.legal_actions(state, 1) == [a.UseSupportCard(STEADY_HANDS), a.DeclineSupport()]
    assert a.UseSupportCard(STEADY_HANDS) not in ENGINE.legal_actions(state, 0)
    with pytest.raises(IllegalAction) as refusal:
        ENGINE.decide(state, 0, a.UseSupportCard(STEADY_HANDS))
    assert refusal.value.rule == "turn.not_your_seat"
    state, events = act(state, 1, a.UseSupportCard(STEADY_HANDS))
    assert events == [ev.RerollRequested("red", f"support:{STEADY_HANDS}")]
    state, events = roll(state, 2)
    assert events == [ev.DieRerolled("red", 2)]
    # The ability is spent: the combatant modifies next, and cannot use the card again.
    assert ENGINE.to_move(state).seats == (0,)
    assert not any(isinstance(x, a.UseSupportCard) for x in ENGINE.legal_actions(state, 0))


def test_a_supporter_may_decline_its_cards_may_ability_and_is_not_asked_again() -> None:
    state = _supported_roll(3, 9, STEADY_HANDS)
    state, events = act(state, 1, a.DeclineSupport())
    assert events == [ev.SupportDeclined(1)]
    assert state.combat is not None and state.combat.red == 9
    assert ENGINE.to_move(state).seats == (0,)
    assert not ENGINE.legal_actions(state, 1)
    _, events = act(state, 0, a.ResolveCombat())  # red 9 against the dog's attack 8: the combatant is hurt
    assert ev.DamageTaken(0, DamageType.PHYSICAL) in events


def test_a_supporters_mandatory_modifier_applies_without_asking_anyone() -> None:
    state = fighting(survivor(enemy(day(2), "X1", DOG, CAMP), 1, space=NORTH))
    state, _ = act(state, 1, a.PlaySupport("blue-1"))  # Distraction: -1 red, no "puede"
    state, _ = act(state, 0, a.RollCombat())
    state, events = roll(state, 3, 9)
    assert events == [ev.CombatRolled(3, 9), ev.DieModified("red", -1, "support:blue-1")]
    assert ENGINE.to_move(state).seats == (0,)
