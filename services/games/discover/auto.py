"""Steps that resolve without a choice: day and night transitions, reshuffles, quest stages."""

from __future__ import annotations

from services.games.common.engine import STOPPED_REASON
from services.games.discover import events as ev
from services.games.discover import state as st
from services.games.discover.board import board
from services.games.discover.combat import start_encounter
from services.games.discover.content import load
from services.games.discover.costs import fire_auto, pay_or_auto
from services.games.discover.effects import run_effects
from services.games.discover.flow import find_encounter
from services.games.discover.monsters import move_step
from services.games.discover.rules import at, left_of, order_from, stage_met
from services.games.discover.state import Phase, Source, State, Status
from services.games.discover.vocab import NightHeal


def auto_events(state: State) -> list[ev.Event]:
    """The events of the automatic step the game is waiting on."""
    if state.phase is not Phase.SETUP and not state.active():
        return [_game_over(state, "no survivor is left on the map")]
    head = state.agenda[0] if state.agenda else None
    if isinstance(head, st.MoveMonsters):
        return move_step(state, head)
    space = find_encounter(state)
    if space is not None:
        return start_encounter(state, space)
    if head is not None:
        return _step(state, head)
    if stage_met(state) and not state.stage_complete:
        return _stage_completed(state)
    return end_of_day(state)


def _game_over(state: State, reason: str) -> ev.GameEnded:
    won = any(s.status is Status.WON for s in state.survivors)
    if won and not state.active():  # some escaped at an earlier dusk, the others fell since
        reason = "some survivors escaped by the signal fire, the others fell"
    return ev.GameEnded(won, reason)


def _step(state: State, step: st.Step) -> list[ev.Event]:
    match step:
        case st.ChooseCharacters():
            chosen = tuple(s.chosen for s in state.survivors)
            return [ev.CharactersRevealed(chosen), ev.StepDone()]
        case st.DrawNight():
            return _reshuffle(state, "night", _level_two(state))
        case st.DrawThreat(seat=seat) if state.survivors[seat].status is Status.ACTIVE:
            return _reshuffle(state, "threat", tuple(sorted(state.threat_discard)))
        case st.RunEffects():
            return run_effects(state, step)
        case st.NightHealing():
            return [*_night_healing(state), ev.StepDone()]
        case st.PayOrSuffer():
            return pay_or_auto(state, step)
        case st.FeedFire():
            return fire_auto(state, step)
        case st.StartDay():
            return _start_day(state)
    return [ev.StepDone()]  # a step with nothing left to do (no card to deal, nothing to gather)


def _level_two(state: State) -> tuple[str, ...]:
    """Only level II cards return to the night deck (rulebook, discarding cards)."""
    night = load(state.scenario).night
    return tuple(sorted(c for c in state.night_discard if night[c].tier == "II"))


def _reshuffle(state: State, deck: str, cards: tuple[str, ...]) -> list[ev.Event]:
    if not cards:
        return [ev.StepDone()]
    base = "night:II" if deck == "night" else "threats"
    pile = f"{base}.{sum(1 for p in state.piles if p.startswith(base))}"
    return [ev.DiscardsReshuffled(deck, pile, cards), ev.StepsQueued((st.Shuffle(pile, cards, False),))]


def _night_healing(state: State) -> list[ev.Event]:
    out: list[ev.Event] = []
    content = load(state.scenario)
    for seat in order_from(state, state.leader):
        survivor = state.survivors[seat]
        abilities = content.characters[survivor.character].abilities if survivor.character else ()
        for ability in abilities:
            if isinstance(ability, NightHeal) and ability.damage in survivor.damage:
                out.append(ev.DamageHealed(seat, ability.damage))
    return out


def _start_day(state: State) -> list[ev.Event]:
    if state.day >= state.max_days:
        # Safety cap (RULES.md): the rulebook has no day limit, so the game is
        # stopped, not lost; nobody it stops is ranked below anyone, and it is never rated.
        won = any(s.status is Status.WON for s in state.survivors)
        return [ev.StepDone(), ev.GameEnded(won, STOPPED_REASON)]
    return [ev.StepDone(), ev.DayStarted(state.day + 1, order_from(state, state.leader))]


def _stage_completed(state: State) -> list[ev.Event]:
    run = st.RunEffects(state.leader, Source.STAGE, str(state.stage), 0, False)
    return [ev.StageCompleted(state.stage), ev.StepsQueued((run,))]


def end_of_day(state: State) -> list[ev.Event]:
    """Ongoing threats expire, survivors on a final objective win, then night begins."""
    out: list[ev.Event] = [ev.DayEnded(state.day)]
    for survivor in state.survivors:
        for card, until in survivor.ongoing:
            if until <= state.day:
                out.append(ev.OngoingThreatExpired(survivor.seat, card))
    winners = _winners(state)
    out.extend(ev.SurvivorWon(seat) for seat in winners)
    remaining = tuple(s for s in state.active() if s not in winners)
    if not remaining:
        if winners:
            return [*out, ev.GameEnded(True, "the survivors left on the map escaped by the signal fire")]
        return [*out, _game_over(state, "no survivor is left on the map")]
    if state.leader in winners:
        out.append(ev.LeaderChanged(left_of(state, state.leader, remaining)))
    return [*out, ev.StepsQueued((st.DrawNight(), st.NightHealing(), st.PassLeader(), st.StartDay()))]


def _winners(state: State) -> tuple[int, ...]:
    landmark = load(state.scenario).stages[state.stage].win_at_landmark
    if landmark is None or not state.stage_complete:
        return ()
    space = board(state).landmarks.get(landmark)
    return at(state, space) if space is not None else ()
