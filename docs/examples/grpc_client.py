"""A whole match over gRPC with the generated stubs (Python, grpcio).

Two players sign in, one creates a match, both join, one starts it; then the
script watches the match as a spectator and, whenever a seat it holds is asked
to act, lists that seat's legal actions and plays one at random, until the end.

    GATEWAY=127.0.0.1:50051 GAME=la_isla .venv/bin/python docs/examples/grpc_client.py

Needs the generated code on the path (`make setup` puts gen/ there for .venv).
"""

from __future__ import annotations

import asyncio
import os
import random
import uuid

import grpc
from tabletop.gateway.v1 import gateway_pb2 as gw
from tabletop.gateway.v1 import (
    lobby_service_pb2_grpc,
    play_service_pb2_grpc,
    sign_in_service_pb2_grpc,
    watch_service_pb2_grpc,
)
from tabletop.match.v1 import match_service_pb2 as match_pb

GATEWAY = os.environ.get("GATEWAY", "127.0.0.1:50051")
GAME = os.environ.get("GAME", "la_isla")
# Refusals that only mean "the match moved on since you looked": look again.
STALE = {grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.PERMISSION_DENIED}


def bearer(token: str) -> tuple[tuple[str, str]]:
    """Every call that needs a token carries it as `authorization: Bearer <token>` metadata."""
    return (("authorization", f"Bearer {token}"),)


async def sign_in(stub: sign_in_service_pb2_grpc.SignInServiceStub) -> str:
    # A guest device: keep the device id to sign the same player in again.
    answer = await stub.Authenticate(gw.AuthenticateRequest(device_id=f"example-{uuid.uuid4()}"))
    return str(answer.session_token)


async def act(stub: play_service_pb2_grpc.PlayServiceStub, match_id: str, token: str, seat: int) -> None:
    """One move of `seat`: a legal action chosen at random, with a command id naming the
    seat and the version it was chosen at, so a resend after a lost answer is harmless."""
    legal = await stub.ListLegalActions(gw.ListLegalActionsRequest(match_id=match_id), metadata=bearer(token))
    if not legal.actions:
        return
    choice = random.Random(f"{seat}-{legal.version}").choice(list(legal.actions))
    request = gw.SubmitActionRequest(match_id=match_id, action=choice, command_id=f"seat{seat}-v{legal.version}")
    try:
        await stub.SubmitAction(request, metadata=bearer(token))
    except grpc.aio.AioRpcError as refused:
        if refused.code() not in STALE:
            raise


async def main() -> None:
    async with grpc.aio.insecure_channel(GATEWAY) as channel:
        # The API is five services by concern, all on the gateway's one port.
        signin = sign_in_service_pb2_grpc.SignInServiceStub(channel)
        lobby = lobby_service_pb2_grpc.LobbyServiceStub(channel)
        play = play_service_pb2_grpc.PlayServiceStub(channel)
        watch = watch_service_pb2_grpc.WatchServiceStub(channel)
        players = [await sign_in(signin), await sign_in(signin)]
        created = await lobby.CreateMatch(gw.CreateMatchRequest(game=GAME, seat_count=2), metadata=bearer(players[0]))
        match_id = created.match.match_id
        seats = {}
        for player in players:
            joined = await lobby.JoinMatch(gw.JoinMatchRequest(match_id=match_id), metadata=bearer(player))
            seats[joined.seat] = joined.token  # the seat's token: acting, leaving, starting
        await lobby.StartMatch(gw.StartMatchRequest(match_id=match_id, command_id="start"), metadata=bearer(seats[0]))
        print(f"match {match_id} ({GAME}) started")
        # One update per new version; each carries the summary (who is to move, the status).
        async for update in watch.WatchMatch(gw.WatchMatchRequest(match_id=match_id)):
            summary = update.match
            if summary.status == match_pb.MATCH_STATUS_FINISHED:
                print(f"finished at version {summary.version}: ranking {list(summary.outcome.ranking)}")
                return
            # Several seats may be asked at once (simultaneous choices): each acts.
            await asyncio.gather(*(act(play, match_id, seats[seat], seat) for seat in summary.to_move))


if __name__ == "__main__":
    asyncio.run(main())
