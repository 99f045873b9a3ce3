"""Full random games per second in process, per engine (no services at all)."""

from __future__ import annotations

import time
from typing import Any

from services.dice.playout import play
from services.games import registry


def games_per_second(game: str, seconds: float = 6.0, players: int | None = None) -> dict[str, Any]:
    """Play seeded random games for about `seconds`; games/s, actions/s and engine time per action."""
    entry = registry.game(game)
    engine = entry.engine
    seats = players or entry.declaration.usual_seats or engine.min_seats
    games = steps = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds or games == 0:
        result = play(engine, {}, seats, seed=games)
        games += 1
        steps += result.steps
    wall = time.perf_counter() - started
    return {
        "game": game,
        "players": seats,
        "games": games,
        "games_per_second": games / wall,
        "engine_steps_per_second": steps / wall,
        "engine_ms_per_step": 1000 * wall / steps,
    }
