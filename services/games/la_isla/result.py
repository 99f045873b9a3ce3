"""Final scoring and the ranking (rulebook: Puntuación final)."""

from __future__ import annotations

from services.games.common.engine import Outcome
from services.games.la_isla.content import ANIMALS
from services.games.la_isla.events import FinalScore
from services.games.la_isla.rules import END_THRESHOLD, SET_POINTS, area, area_sum, tile_worth
from services.games.la_isla.state import Phase, Player, State


def score(state: State, seat: int, player: Player) -> FinalScore:
    """Sets of 5 animals, tiles times multipliers, 1 per 2 resources; large tiles count 2."""
    worth = [tile_worth(player, a) for a in ANIMALS]
    sets = min(worth) * SET_POINTS
    tiles = sum(w * area(m) for w, m in zip(worth, state.markers))
    left = sum(player.resources)
    bonus = left // 2
    return FinalScore(seat, sets, tiles, bonus, player.score + sets + tiles + bonus, left)


def final_scores(state: State) -> tuple[FinalScore, ...]:
    """Every seat's final score."""
    return tuple(score(state, seat, p) for seat, p in enumerate(state.players))


def ranking(keys: list[tuple[int, int]]) -> tuple[int, ...]:
    """Places from (points, resources left): more resources break ties, else shared place."""
    return tuple(1 + sum(other > mine for other in keys) for mine in keys)


def result(state: State) -> Outcome | None:
    """The outcome once the game has ended."""
    if state.phase is not Phase.OVER:
        return None
    keys = [(p.score, sum(p.resources)) for p in state.players]
    detail = {f"seat{s}.resources_left": str(k[1]) for s, k in enumerate(keys)}
    # Why it ended (Fin del juego): the markers' areas reached the threshold, or the cards ran out.
    detail["reason"] = "end_threshold" if area_sum(state.markers) >= END_THRESHOLD[state.seats] else "cards_ran_out"
    return Outcome(ranking(keys), tuple(k[0] for k in keys), detail)
