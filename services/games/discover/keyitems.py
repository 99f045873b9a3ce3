"""Key items (rulebook "Elementos clave"): resolve a different exploration card than the one drawn."""

from __future__ import annotations

from services.games.common.engine import IllegalAction
from services.games.discover import actions as act
from services.games.discover import events as ev
from services.games.discover import state as st
from services.games.discover.content import load
from services.games.discover.state import Source, State
from services.games.discover.vocab import AltExploration


def key_items(state: State, seat: int, number: int) -> dict[int, int]:
    """Carried key items -> the exploration card each would resolve instead of `number`."""
    items = load(state.scenario).items
    found: dict[int, int] = {}
    for item in state.survivors[seat].items:
        for a in items[item].passive:
            if isinstance(a, AltExploration) and a.card != number:
                found[item] = a.card
    return found


def exploration_step(state: State, seat: int, number: int) -> st.Step:
    """Resolve a drawn exploration card, first offering any key item (chosen before seeing it)."""
    if key_items(state, seat, number):
        return st.OfferKeyItem(seat, number)
    return st.RunEffects(seat, Source.EXPLORATION, str(number), 0, number not in state.resolved)


def decide_key_item(state: State, seat: int, action: act.Action) -> list[ev.Event]:
    step = state.agenda[0]
    assert isinstance(step, st.OfferKeyItem)
    match action:
        case act.UseKeyItem(item=item) if item in key_items(state, seat, step.number):
            number = key_items(state, seat, step.number)[item]
        case act.DeclineKeyItem():
            number = step.number
        case _:
            raise IllegalAction("discover.world.key_item", "use a key item you carry, or decline")
    run = st.RunEffects(seat, Source.EXPLORATION, str(number), 0, number not in state.resolved)
    return [ev.StepDone(), ev.StepsQueued((run,))]
