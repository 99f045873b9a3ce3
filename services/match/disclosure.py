"""Which past an undo may return to: none of the actions it takes back disclosed anything.

The cheap half of the verdict was made with each move (DecideResponse.undoable,
services/match/undo.py); this is the dear half, made only when a seat asks to take
its moves back: the rules decide each action again, newest first, with
`judge_undo` (services/match/turns.py `discloses`). See the design notes, "Undo".
"""

from __future__ import annotations

from tabletop.match.v1 import events_pb2 as ev

from services.common.errors import FailedPrecondition
from services.common.redis.keys import match_stream
from services.common.store.event_store import EventStore
from services.match import undo
from services.match.lifecycle import Match
from services.match.repository import MatchRepository
from services.match.turns import TurnRunner


async def undisclosed(
    store: EventStore, matches: MatchRepository, turns: TurnRunner, match: Match, seat: int, count: int
) -> Match:
    """The match before `seat`'s last `count` actions, once the rules have judged that
    none of them disclosed anything hidden from the seat (newest first: a move that did
    fixes every move before it as well). Refuses with what may still be taken back."""
    stream = match_stream(match.match_id)
    past = match
    for taken, before in enumerate(reversed(match.undo.versions[-count:])):
        past = await matches.at(match.match_id, before)
        (point,) = await store.read(stream, after_version=before, limit=1)
        action = ev.UndoPoint.FromString(point.data).action if point.type == undo.UNDO_POINT else None
        # A point without its action was judged when its move was made.
        if action is None or not action.type_url or not await turns.discloses(past, seat, action):
            continue
        if taken == 0:
            raise FailedPrecondition("nothing to undo: the last action showed something hidden", "undo.nothing_to_undo")
        raise FailedPrecondition(
            f"only {taken} action(s) can be taken back: the one before showed something hidden", "undo.too_many"
        )
    return past
