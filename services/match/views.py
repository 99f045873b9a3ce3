"""What a viewer sees of a match at its version, computed once per (version, viewer).

Mostly the rules' whole position answers it (RulesBook's position cache, kept from
the decision that led there). What that cache cannot answer is kept here: the
spectator's view of a decision's position (which leaves the spectator out, see the
design notes, "Views go through the match service"), and views at versions whose
position was never computed (replays). A view at a version never changes, so live
views and replays share the cache.
"""

from __future__ import annotations

from google.protobuf import any_pb2
from tabletop.rules.v1 import rules_service_pb2 as rpb

from services.common.lru import LRU
from services.match import records
from services.match.lifecycle import Match
from services.match.repository import CACHE_SIZE
from services.match.turns import RulesBook

# The key's viewer for the spectator.
SPECTATOR = -2


class Views:
    def __init__(self, rules: RulesBook) -> None:
        self._rules = rules
        self._views: LRU[tuple[str, int, int], any_pb2.Any] = LRU(CACHE_SIZE, fifo=True)

    async def seen_by(self, match: Match, viewer: int | None) -> any_pb2.Any | None:
        """What `viewer` (None: a spectator) sees of the game at the match's version
        (None before the start)."""
        if match.engine_state is None:
            return None
        known = self._rules.known_position(match)
        if known is not None and viewer is not None:
            return known.seats[viewer].view
        if known is not None and known.HasField("spectator_view"):
            return known.spectator_view
        key = (match.match_id, match.version, SPECTATOR if viewer is None else viewer)
        view = self._views.get(key)
        if view is None:
            request = rpb.GetViewRequest(state=records.engine_state(match))
            if viewer is not None:
                request.viewer = viewer
            view = (await self._rules.of(match.game).GetView(request)).view
            self._views.put(key, view)
        return view
