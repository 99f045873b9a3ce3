"""FormMatches: many FormMatch in one call (the matchmaker forms a grouping pass's groups so).

Each match is formed exactly as FormMatch forms it, concurrently, each its own
append: one that fails (refused, a lost race, the store away) fails only
itself, and its result says so. The caller retries a failed one alone with
FormMatch, which answers with the failure's status, so all error handling
stays with the one-match call; idempotency (the command id) makes a retry
of one that was formed after all answer the same match.
"""

from __future__ import annotations

import asyncio

from tabletop.match.v1 import match_service_pb2 as pb

from services.common.errors import InvalidArgument, ServiceError
from services.match.app import MatchApp
from services.match.records import summary

MAX_MATCHES = 256


async def form_matches(app: MatchApp, request: pb.FormMatchesRequest) -> pb.FormMatchesResponse:
    if len(request.matches) > MAX_MATCHES:
        raise InvalidArgument(f"at most {MAX_MATCHES} matches per call", "matches")

    async def one(item: pb.FormMatchRequest) -> pb.FormMatchResult:
        players = [(p.player_id, p.display_name) for p in item.players]
        try:
            match = await app.form(item.game, dict(item.config), players, item.command_id, item.match_id)
        except ServiceError as error:
            return pb.FormMatchResult(error=f"{error.code.name}: {error.message}")
        return pb.FormMatchResult(match=summary(match))

    results = await asyncio.gather(*(one(item) for item in request.matches))
    return pb.FormMatchesResponse(results=results)
