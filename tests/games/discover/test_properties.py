"""Random play over hypothesis-chosen seeds, 1-4 survivors: invariants that every game keeps."""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from services.dice.playout import play
from services.games.common.engine import STOPPED_REASON, Audience, IllegalAction, replay
from services.games.discover import ENGINE
from services.games.discover import actions as a
from services.games.discover.state import HEALTH_DIALS, STAMINA_MAX, State, Status
from services.games.discover.vocab import DamageType, Hex

SOAK = int(os.environ.get("SOAK", "0") or 0)
SOAK_GAMES = 1000 * max(1, SOAK)
MAX_STEPS = 20_000  # far above any game of random bots (they fall within a few weeks)

seeds = hs.integers(min_value=0, max_value=2**31)
seat_counts = hs.integers(min_value=1, max_value=4)


def invariants(state: State, event: Any) -> None:
    """Checked after every event of a playout."""
    for s in state.survivors:
        assert 0 <= s.stamina <= STAMINA_MAX
        assert len(s.damage) <= HEALTH_DIALS, "a fourth damage must eliminate instead"
        assert all(n > 0 for n in s.resources.values())
    assert state.day <= state.max_days


def private_checks(state: State, event: Any) -> None:
    """A seat's view and the events it reads never hold another seat's hidden cards."""
    invariants(state, event)
    for viewer in range(len(state.survivors)):
        view = ENGINE.view(state, viewer)
        assert view.hand == state.survivors[viewer].hand and view.offer == state.survivors[viewer].offer
        for other in view.survivors:
            assert not hasattr(other, "hand") and not hasattr(other, "offer")
        if not ENGINE.visibility(event).admits(viewer):
            shown = ENGINE.redact(event)
            assert shown is None or ENGINE.visibility(shown).audience is Audience.PUBLIC
            assert not {"characters", "projects", "character"} & set(vars(shown or event)) or shown is None
    spectator = ENGINE.view(state, None)  # the public view every seat's is made from
    assert (spectator.viewer, spectator.hand, spectator.offer, spectator.chosen) == (-1, (), (), 0)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=seeds, seats=seat_counts)
def test_every_game_ends_in_a_result_by_fate_and_replays(seed: int, seats: int) -> None:
    game = play(ENGINE, {}, seats, seed, max_steps=MAX_STEPS, check=invariants)
    assert game.outcome is not None, "the game must end"
    fates = [s.status for s in game.state.survivors]
    assert game.outcome.cooperative_win is (Status.WON in fates)
    place = {Status.WON: 0, Status.ACTIVE: 1, Status.CASUALTY: 2}  # winners, still on the map, casualties
    for seat, fate in enumerate(fates):
        assert game.outcome.ranking[seat] == 1 + sum(1 for other in fates if place[other] < place[fate])
    assert replay(ENGINE, game.initial, game.events) == game.state
    assert all(s.status is not Status.ACTIVE for s in game.state.survivors)


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=seeds, seats=seat_counts)
def test_views_and_events_keep_private_cards_private(seed: int, seats: int) -> None:
    play(ENGINE, {}, seats, seed, max_steps=MAX_STEPS, check=private_checks)


def _random_action(rng: random.Random) -> a.Action:
    """An arbitrary action with arbitrary parameters (most are illegal at any moment)."""
    h = Hex(rng.randint(-4, 4), rng.randint(-4, 4))
    n = rng.randint(-1, 25)
    word = rng.choice(["wood", "stone", "food", "meat", "gold", "", "red-1", "X1", "beacon"])
    return rng.choice(
        [
            a.Move(h), a.Explore(n), a.Cook(n, rng.randint(0, 2)), a.Craft(n), a.Trade(n), a.Recover(DamageType.THIRST),
            a.UseItem(n), a.UseQuestAction(word), a.Loot(n, word, n), a.ChooseCharacter(n), a.PassLeadership(n),
            a.ChooseFighter(n), a.ChooseEnemy(word), a.ChooseSpace(h), a.PlaySupport(word), a.SpendResource(word),
            a.UseCombatItem(n), a.UseSupportCard(word), a.Escape(h), a.TradeGive(word, n), a.TradeTake(word, 0),
            a.UseKeyItem(n), a.Gather(), a.Investigate(), a.RestartFire(), a.RollCombat(), a.ResolveCombat(),
        ]
    )  # fmt: skip


def checking_policy(rng: random.Random) -> Any:
    """Pick uniformly, after checking every listed action is accepted and stray ones refused."""

    def choose(state: State, seat: int, legal: list[a.Action]) -> a.Action:
        for action in legal:
            ENGINE.decide(state, seat, action)  # raises if a listed action is refused
        for _ in range(3):
            stray = _random_action(rng)
            if stray not in legal:
                with pytest.raises(IllegalAction):
                    ENGINE.decide(state, seat, stray)
        return legal[rng.randrange(len(legal))]

    return choose


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=seeds, seats=seat_counts)
def test_listed_actions_are_accepted_and_others_refused(seed: int, seats: int) -> None:
    rng = random.Random(seed)
    play(ENGINE, {}, seats, seed, max_steps=MAX_STEPS, policy=checking_policy(rng))


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=seeds, seats=seat_counts)
def test_the_day_cap_always_ends_the_game(seed: int, seats: int) -> None:
    game = play(ENGINE, {"max_days": "2"}, seats, seed, max_steps=MAX_STEPS)
    assert game.outcome is not None and game.state.day <= 2
    if game.state.active():  # the cap, not the rules, ended it: stopped, nobody ranked below a survivor left
        assert game.outcome.detail["reason"] == STOPPED_REASON
        assert all(game.outcome.ranking[s] == 1 for s in game.state.active())
        assert game.outcome.cooperative_win is not False


def _patient(rng: random.Random) -> Any:
    """A bot that never ends its turn or escapes while it has something else to do: long games."""

    def choose(state: State, seat: int, legal: list[a.Action]) -> a.Action:
        busy = [x for x in legal if not isinstance(x, a.EndTurn | a.Escape | a.EndTrade)]
        return rng.choice(busy or legal)

    return choose


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=seeds, seats=seat_counts)
def test_a_busier_policy_also_terminates(seed: int, seats: int) -> None:
    game = play(ENGINE, {}, seats, seed, max_steps=MAX_STEPS, policy=_patient(random.Random(seed)), check=invariants)
    assert game.outcome is not None


@pytest.mark.slow
@pytest.mark.skipif(not SOAK, reason="set SOAK=n to play n x 1000 games")
def test_soak_thousands_of_games() -> None:
    for seed in range(SOAK_GAMES):
        policy = _patient(random.Random(seed)) if seed % 2 else None
        game = play(ENGINE, {}, 1 + seed % 4, seed, max_steps=MAX_STEPS, check=invariants, policy=policy)
        assert game.outcome is not None, seed
        assert replay(ENGINE, game.initial, game.events) == game.state, seed
