"""Win rates and causes of death of Discover games played in process.

Plays N seeded games per player count with the random bots of
services/dice/playout.py and with a simple goal-directed policy (heal, cook,
fetch food and water, craft, follow the quest to its landmarks, explore toward
the landmark the quest needs, pool the beacon's materials with one survivor),
and prints the share of games won with its 95% Wilson interval, how far the
teams got (quest stages completed, beacon unlocked, beacon lit, survivors who
escaped) and what killed the survivors. A tool for balancing the
content, not a test: nothing here is asserted.

    .venv/bin/python -m tools.discover_rates --games 200 --players 1,2,3,4
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from dataclasses import dataclass, field

from bots.arena import wilson
from bots.strategies.discover_playbook import goal_policy
from services.dice.playout import play, random_policy
from services.games.discover import ENGINE
from services.games.discover import events as ev
from services.games.discover import state as st
from services.games.discover.content import load
from services.games.discover.effects import card_effects
from services.games.discover.state import State, Status
from services.games.discover.vocab import DamageType

# ---------------------------------------------------------------- causes of death


@dataclass
class Tally:
    games: int = 0
    won: int = 0
    stages: Counter[int] = field(default_factory=Counter)
    deaths: Counter[str] = field(default_factory=Counter)
    fates: Counter[str] = field(default_factory=Counter)
    funnel: Counter[str] = field(default_factory=Counter)
    days: int = 0


def _cause(before: State, popped: st.Step | None, seen: dict[str, int]) -> str:
    """What dealt the fourth damage: a combat, or the effect being resolved."""
    if before.combat is not None:
        number = seen.get(before.combat.enemy, 0)
        return f"combat:{load(before.scenario).enemies[number].name}" if number else "combat"
    if isinstance(popped, st.PayOrSuffer):
        return f"upkeep:{popped.damage.value}"
    if isinstance(popped, st.RunEffects):
        effects = card_effects(before, popped)
        if popped.index < len(effects):
            effect = effects[popped.index]
            kind = getattr(effect, "damage", None)
            name = kind.value if isinstance(kind, DamageType) else type(effect).__name__
            return f"{popped.source.value}:{name}"
    return "other"


def play_one(players: int, seed: int, bot: str, tally: Tally) -> None:
    rng = random.Random(seed ^ 0x5EED)
    policy = goal_policy(rng) if bot == "goal" else random_policy(rng)
    last: list[State] = []
    popped: list[st.Step | None] = [None]
    seen: dict[str, int] = {}  # enemy token -> its card, kept after the token leaves

    def check(state: State, event: ev.Event) -> None:
        before = last[0] if last else state
        if isinstance(event, ev.StepDone) and before.agenda:
            popped[0] = before.agenda[0]
        if isinstance(event, ev.SurvivorEliminated):
            tally.deaths[_cause(before, popped[0], seen)] += 1
        last[:] = [state]
        seen.update((e.id, e.number) for e in state.enemies if e.number)

    done = play(ENGINE, {}, players, seed, check=check, policy=policy)
    tally.games += 1
    final = done.state
    tally.won += int(final.won)
    tally.stages[final.stages_done] += 1
    tally.days += final.day
    tally.funnel["beacon unlocked"] += int("beacon" in final.unlocked)
    tally.funnel["beacon lit"] += int(20 in final.placed)
    tally.funnel["escaped"] += int(any(s.status is Status.WON for s in final.survivors))
    for s in final.survivors:
        tally.fates[s.status.value if s.status is not Status.ACTIVE else "day cap"] += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", default="1,2,3,4")
    parser.add_argument("--bots", default="random,goal")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for bot in args.bots.split(","):
        for players in (int(p) for p in args.players.split(",")):
            tally = Tally()
            started = time.monotonic()
            for i in range(args.games):
                play_one(players, args.seed * 100_000 + i, bot, tally)
            _report(bot, players, tally, time.monotonic() - started)


def _report(bot: str, players: int, t: Tally, seconds: float) -> None:
    rate = 100 * t.won / max(1, t.games)
    low, high = wilson(t.won, t.games)
    deaths = ", ".join(f"{k} {n}" for k, n in t.deaths.most_common())
    stages = ", ".join(f"{k}:{n}" for k, n in sorted(t.stages.items()))
    fates = ", ".join(f"{k} {n}" for k, n in t.fates.most_common())
    funnel = ", ".join(f"{k} {t.funnel[k]}" for k in ("beacon unlocked", "beacon lit", "escaped"))
    print(
        f"{bot:6} M={players} games={t.games} won={t.won} ({rate:.1f}%, Wilson {low:.0%}-{high:.0%}) "
        f"avg days={t.days / max(1, t.games):.1f} stages[{stages}] funnel[{funnel}] "
        f"fates[{fates}] deaths[{deaths}] ({seconds:.0f}s)",
        flush=True,
    )


if __name__ == "__main__":
    main()
