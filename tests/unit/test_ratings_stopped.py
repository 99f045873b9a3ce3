"""A game a safety cap stopped (a day or round limit no rulebook has) is never rated: its
outcome says `stopped_by_cap`, and the ratings projection reads that from the match log."""

from __future__ import annotations

import asyncio

from tabletop.common.v1 import common_pb2
from tabletop.match.v1 import events_pb2 as ev

from services.common.redis import keys
from services.common.store.event_store import MemoryEventStore, NewEvent
from services.dice.playout import play
from services.games.common.engine import STOPPED_REASON, Outcome
from services.games.discover import ENGINE as DISCOVER
from services.games.el_dorado import ENGINE as EL_DORADO
from services.matchmaker.projection import match_result
from services.matchmaker.ratings import DEFAULT_RULES, Result, untrusted


def _logged_result(outcome: Outcome) -> Result | None:
    """The ratings' view of a matchmade two-player match that ended with `outcome`."""
    message = common_pb2.Outcome(ranking=outcome.ranking, scores=outcome.scores, detail=dict(outcome.detail))
    if outcome.cooperative_win is not None:
        message.cooperative_win = outcome.cooperative_win
    log = [
        ev.MatchCreated(game="g", seat_count=2, matchmade=True),
        ev.PlayerJoined(seat=0, player_id="ana"),
        ev.PlayerJoined(seat=1, player_id="ben"),
        ev.MatchEnded(outcome=message),
    ]

    async def run() -> Result | None:
        store = MemoryEventStore()
        stream = keys.match_stream("m1")
        events = [NewEvent(f"tabletop.match.v1.{type(e).__name__}", e.SerializeToString()) for e in log]
        await store.append(stream, await store.version(stream), events)
        return await match_result(store, "m1")

    return asyncio.run(run())


def test_a_discover_game_stopped_by_the_day_cap_is_not_rated() -> None:
    game = play(DISCOVER, {"max_days": "1"}, 2, 3)
    assert game.outcome is not None and game.state.active(), "both survive day 1"
    result = _logged_result(game.outcome)
    assert result is not None and result.stopped
    assert untrusted(result, DEFAULT_RULES) == "ratings.stopped"


def test_an_el_dorado_race_stopped_by_the_round_cap_is_not_rated() -> None:
    game = play(EL_DORADO, {"max_rounds": "2"}, 2, 4)
    assert game.outcome is not None and game.outcome.detail["reason"] == STOPPED_REASON
    result = _logged_result(game.outcome)
    assert result is not None and result.stopped
    assert untrusted(result, DEFAULT_RULES) == "ratings.stopped"


def test_a_game_its_rules_ended_is_rated() -> None:
    decided = Outcome((1, 2), (2, 0), {"reason": "el_dorado"})
    result = _logged_result(decided)
    assert result is not None and not result.stopped
    assert untrusted(result, DEFAULT_RULES) is None
