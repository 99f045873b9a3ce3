"""Chance outcomes answering agenda steps (shuffles, deals, draws, the leader dice),
and the non-combat choices of setup and night (character pick, passing the leader marker)."""

from __future__ import annotations

from services.games.common.chance import CardsDrawn, ChanceOutcome, DiceRolled, PileShuffled
from services.games.common.engine import IllegalAction
from services.games.discover import actions as act
from services.games.discover import events as ev
from services.games.discover import state as st
from services.games.discover.combat import start_combat
from services.games.discover.content import load
from services.games.discover.day import feature_bonus
from services.games.discover.keyitems import exploration_step
from services.games.discover.rules import gain_events
from services.games.discover.setup import card_number
from services.games.discover.state import Source, State
from services.games.discover.vocab import Hex

UNEXPECTED = "discover.chance.unexpected"


def step_outcome(state: State, step: st.Step, outcome: ChanceOutcome) -> list[ev.Event]:
    """Events for the outcome of the chance request of agenda step `step`."""
    match step, outcome:
        case st.Shuffle(pile=pile), PileShuffled(size=size):
            return [ev.PileFormed(pile, size), ev.StepDone()]
        case st.RollLeader(seats=seats), DiceRolled(values=values):
            return _leader_roll(seats, values)
        case st.DealCharacters(seat=seat), CardsDrawn(cards=cards):
            return [ev.CharactersDealt(seat, tuple(card_number(c) for c in cards)), ev.StepDone()]
        case st.DealProjects(seat=seat), CardsDrawn(cards=cards):
            return [ev.ProjectsDrawn(seat, tuple(card_number(c) for c in cards)), ev.StepDone()]
        case st.DrawTile(slot=slot), CardsDrawn(cards=(tile,)):
            return [ev.TileRevealed(slot, card_number(tile)), ev.StepDone()]
        case st.RevealFeature(seat=seat, space=space), CardsDrawn(cards=(token,)):
            return [ev.StepDone(), *_feature(state, seat, space, token)]
        case st.DrawNight(), CardsDrawn(cards=(card,)):
            run = st.RunEffects(state.leader, Source.NIGHT, card, 0, False)
            return [ev.NightCardDrawn(card), ev.StepDone(), ev.StepsQueued((run,))]
        case st.DrawThreat(seat=seat), CardsDrawn(cards=(card,)):
            return _threat(state, seat, card)
    raise IllegalAction(UNEXPECTED, "the outcome does not answer the pending request")


def _leader_roll(seats: tuple[int, ...], values: tuple[int, ...]) -> list[ev.Event]:
    """Highest roll leads; tied players roll again (rulebook, setup step 2)."""
    best = max(values)
    tied = tuple(s for s, v in zip(seats, values) if v == best)
    out: list[ev.Event] = [ev.LeaderRolled(seats, values), ev.StepDone()]
    if len(tied) > 1:
        return [*out, ev.StepsQueued((st.RollLeader(tied),))]
    return [*out, ev.LeaderChanged(tied[0])]


def _feature(state: State, seat: int, space: Hex, token: str) -> list[ev.Event]:
    """A flipped feature token: a resource to keep, an enemy to fight, or an exploration card."""
    face = load(state.scenario).features[token][1]
    out: list[ev.Event] = [ev.FeatureRevealed(seat, space, token, face)]
    kind, _, number = face.partition(":")
    if kind == "enemy":
        appeared = ev.EnemySpawned(f"F{state.enemy_serial}", int(number), space, False)
        return [*out, appeared, *start_combat(state, seat, appeared.enemy)]
    if kind == "explore":
        return [*out, ev.StepsQueued((exploration_step(state, seat, int(number)),))]
    return out + gain_events(state, seat, face, 1 + feature_bonus(state, seat, face))


def _threat(state: State, seat: int, card: str) -> list[ev.Event]:
    """Tribal threats are redrawn when no other survivor is on the map; ongoing ones stay out."""
    spec = load(state.scenario).threats[card]
    out: list[ev.Event] = [ev.ThreatDrawn(seat, card), ev.StepDone()]
    if spec.tribal and not [s for s in state.active() if s != seat]:
        return [*out, ev.CardDiscarded("threat", card), ev.StepsQueued((st.DrawThreat(seat),))]
    run = st.RunEffects(seat, Source.THREAT, card, 0, False)
    if spec.ongoing:
        out.append(ev.OngoingThreatPlaced(seat, card, state.day + 1))
    return [*out, ev.StepsQueued((run,))]


def choose_character(state: State, seat: int, action: act.Action) -> list[ev.Event]:
    """Each player secretly keeps one of the characters dealt to them."""
    match action:
        case act.ChooseCharacter(character=character) if character in state.survivors[seat].offer:
            return [ev.CharacterChosen(seat, character)]
    raise IllegalAction("discover.setup.character", "choose one of the characters dealt to you")


def pass_leadership(state: State, seat: int, action: act.Action) -> list[ev.Event]:
    """At the end of the night the leader keeps the marker or hands it to another survivor."""
    match action:
        case act.PassLeadership(seat=to) if to in state.active():
            out: list[ev.Event] = [ev.StepDone()]
            return out + ([ev.LeaderChanged(to)] if to != state.leader else [])
    raise IllegalAction("discover.night.pass_leader", "pass the marker to a survivor on the map")
