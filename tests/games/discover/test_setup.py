"""Setup ("Preparar"): one test per rule."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.games.common.chance import CHANCE_SEAT, DiceRolled, DrawCards, RollDice, ShufflePile
from services.games.common.engine import IllegalAction, InvalidConfig, Visibility
from services.games.discover import ENGINE
from services.games.discover import actions as a
from services.games.discover import events as ev
from services.games.discover import state as st
from services.games.discover.state import Phase
from tests.games.discover.builders import CAMP, act, draw, game_events, roll, shuffled


def _skip_shuffles(state: st.State) -> st.State:
    """Answer every pending shuffle with the full pile."""
    while isinstance(ENGINE.to_move(state).chance, ShufflePile):
        request = ENGINE.to_move(state).chance
        assert isinstance(request, ShufflePile)
        state, _ = shuffled(state, request.pile, len(request.cards))
    return state


@pytest.mark.parametrize(("seats", "stamina"), [(1, 12), (2, 10), (3, 8), (4, 8)])
def test_starting_stamina_by_player_count(seats: int, stamina: int) -> None:
    state = ENGINE.setup({}, seats)
    assert {s.stamina for s in state.survivors} == {stamina}


def test_each_survivor_starts_with_one_food_and_one_clean_water_at_the_camp() -> None:
    state = ENGINE.setup({}, 3)
    assert all(s.resources == {"clean_water": 1, "food": 1} and s.space == CAMP for s in state.survivors)


def test_solo_play_uses_no_combat_support_cards() -> None:
    assert ENGINE.setup({}, 1).survivors[0].support == ()
    assert [len(s.support) for s in ENGINE.setup({}, 2).survivors] == [3, 3]


def test_leader_is_the_highest_die_and_ties_reroll() -> None:
    state = ENGINE.setup({}, 3)
    assert ENGINE.to_move(state).chance == RollDice(3, 12)
    state, events = roll(state, 9, 4, 9)
    assert game_events(events) == [ev.LeaderRolled((0, 1, 2), (9, 4, 9))]
    assert ENGINE.to_move(state).chance == RollDice(2, 12)  # only the tied players
    state, events = roll(state, 3, 11)
    assert game_events(events) == [ev.LeaderRolled((0, 2), (3, 11)), ev.LeaderChanged(2)]
    assert state.leader == 2


def test_night_deck_is_four_shuffled_level_one_over_six_shuffled_level_two() -> None:
    state = ENGINE.setup({}, 1)
    assert ENGINE.to_move(state).chance == ShufflePile("night:II", ("N05", "N06", "N07", "N08", "N09", "N10"), False)
    state, _ = shuffled(state, "night:II", 6)
    assert ENGINE.to_move(state).chance == ShufflePile("night:I", ("N01", "N02", "N03", "N04"), False)
    state, _ = shuffled(state, "night:I", 4)
    state = replace(state, agenda=(st.DrawNight(),))
    assert ENGINE.to_move(state).chance == DrawCards("night:I", 1, None)  # level I on top


def test_exploration_enemy_and_item_decks_stay_in_numeric_order() -> None:
    state = ENGINE.setup({}, 1)
    requests = {}
    while isinstance(ENGINE.to_move(state).chance, ShufflePile):
        request = ENGINE.to_move(state).chance
        assert isinstance(request, ShufflePile)
        requests[request.pile] = request
        state, _ = shuffled(state, request.pile, len(request.cards))
    for pile in ("exploration", "enemies", "items"):
        assert requests[pile].keep_order and list(requests[pile].cards) == sorted(requests[pile].cards)
    assert not requests["threats"].keep_order and not requests["projects"].keep_order


@pytest.mark.parametrize(("seats", "dealt", "projects"), [(1, 4, 3), (2, 2, 2), (3, 2, 1), (4, 2, 1)])
def test_characters_dealt_and_project_cards_by_player_count(seats: int, dealt: int, projects: int) -> None:
    state = ENGINE.setup({}, seats)
    if seats > 1:
        state, _ = roll(state, *range(1, seats + 1))
    state = _skip_shuffles(state)
    assert ENGINE.to_move(state).chance == DrawCards("characters", dealt, 0)
    for seat in range(seats):
        state, _ = draw(state, "characters", *(f"C{seat * 4 + i + 1:02d}" for i in range(dealt)))
    assert ENGINE.to_move(state).chance == DrawCards("projects", projects, 0)


def _drafting(seats: int) -> st.State:
    state = ENGINE.setup({}, seats)
    state, _ = roll(state, *range(1, seats + 1))
    state = _skip_shuffles(state)
    for seat in range(seats):
        state, _ = draw(state, "characters", f"C{2 * seat + 1:02d}", f"C{2 * seat + 2:02d}")
    for seat in range(seats):
        state, _ = draw(state, "projects", *(f"P{seat + 1:02d}",) * (2 if seats == 2 else 1))
    return state


def test_characters_are_chosen_in_secret_and_revealed_together() -> None:
    state = _drafting(2)
    assert ENGINE.to_move(state).seats == (0, 1)
    state, events = act(state, 1, a.ChooseCharacter(4))
    assert events == [ev.CharacterChosen(1, 4)]
    assert ENGINE.visibility(events[0]) == Visibility.only(1)
    assert ENGINE.redact(events[0]) == ev.CharacterPicked(1)
    assert ENGINE.view(state, 0).survivors[1].character == 0
    state, events = act(state, 0, a.ChooseCharacter(1))
    assert ev.CharactersRevealed((1, 4)) in events
    assert state.phase is Phase.DAY and state.turn_order == (1, 0)  # the leader (seat 1) starts


def test_cannot_choose_a_character_not_dealt_to_you() -> None:
    state = _drafting(2)
    with pytest.raises(IllegalAction) as refused:
        ENGINE.decide(state, 0, a.ChooseCharacter(3))
    assert refused.value.rule == "discover.setup.character"


def test_project_cards_are_private_and_redacted_to_a_count() -> None:
    event = ev.ProjectsDrawn(1, (3, 7))
    assert ENGINE.visibility(event) == Visibility.only(1)
    assert ENGINE.redact(event) == ev.HiddenCardsDealt(1, "projects", 2)


def test_fixed_characters_option_skips_the_draft() -> None:
    state = ENGINE.setup({"characters": "5,2"}, 2)
    assert [s.character for s in state.survivors] == [5, 2]
    assert not any(isinstance(s, st.ChooseCharacters) for s in state.agenda)


@pytest.mark.parametrize(
    "config",
    [{"colour": "red"}, {"scenario": "nowhere"}, {"max_days": "0"}, {"characters": "1"}, {"characters": "1,1"}],
)
def test_invalid_options_are_refused(config: dict[str, str]) -> None:
    with pytest.raises(InvalidConfig):
        ENGINE.setup(config, 2)


def test_five_survivors_are_refused() -> None:
    with pytest.raises(InvalidConfig):
        ENGINE.setup({}, 5)


def test_chance_outcome_must_answer_the_pending_request() -> None:
    state = ENGINE.setup({}, 2)
    with pytest.raises(IllegalAction) as refused:
        ENGINE.decide(state, CHANCE_SEAT, DiceRolled((3,)))
    assert refused.value.rule == "chance.mismatch"


def test_solo_has_no_leader_roll() -> None:
    state = ENGINE.setup({}, 1)
    assert not any(isinstance(s, st.RollLeader) for s in state.agenda) and state.leader == 0
