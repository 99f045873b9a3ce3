"""Gateway endpoints for matchmaking: forwarded to the matchmaker service."""

from __future__ import annotations

from typing import Any


class MatchmakingEndpoints:
    """Mixed into GatewayServicer; `self._matchmaker` is a matchmaker client (or None)."""

    _matchmaker: Any
