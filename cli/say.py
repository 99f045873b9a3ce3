"""What the command-line client says: a refused call as a sentence and a next step, and
each game's words (DescribeGame), fetched once per command.
"""

from __future__ import annotations

import grpc
from tabletop.gateway.v1 import gateway_pb2 as pb

from cli.api import Gateway
from contract.errors import error_info
from contract.words import from_message, game_words
from services.games import registry
from services.games.common.words import GameWords

# A broken rule (ErrorInfo reason) -> the next step, in words.
RULE_STEPS = {
    "match.not_your_turn": "wait for your turn: `tabletop actions MATCH` says who is to move",
    "match.full": "every seat is taken: `tabletop matches --all` lists tables with room",
    "match.seat_taken": "pick another seat with --seat, or leave --seat out for any free one",
    "match.seats_free": "every seat must be taken first: wait for the others to `tabletop join`",
    "undo.limit": "you have taken back as many moves as a turn allows",
    "undo.not_yours": "only the seat that made the last moves may take them back",
    "clock.expired": "your time ran out and the clock moved for you: `tabletop view MATCH` shows where it stands",
    "auth.custom_disabled": "sign in as a guest (--name) instead",
}

STEPS = {
    grpc.StatusCode.NOT_FOUND: "check the id: `tabletop matches` lists yours, `tabletop games` the games",
    grpc.StatusCode.INVALID_ARGUMENT: "check the command's arguments (`tabletop COMMAND --help`)",
    grpc.StatusCode.PERMISSION_DENIED: "that is not yours to see or do while the match is played",
    grpc.StatusCode.RESOURCE_EXHAUSTED: "too many requests at once: wait a moment and try again",
    grpc.StatusCode.FAILED_PRECONDITION: "`tabletop view MATCH` shows where the match stands",
    grpc.StatusCode.ALREADY_EXISTS: "it was done before: `tabletop matches` shows where things stand",
}


def explain(error: grpc.aio.AioRpcError, gateway: str) -> tuple[str, str]:
    """(what went wrong, what to do next) for a failed call to the gateway at `gateway`."""
    code = error.code()
    if code == grpc.StatusCode.UNAVAILABLE and _unreachable(error):
        return (f"cannot reach the gateway at {gateway} - is `make run` running?",
                "start it with `make run`, or point --gateway (or TABLETOP_GATEWAY) at a running one")
    if code == grpc.StatusCode.UNAVAILABLE:
        return error.details() or "the gateway is unavailable", ""  # the gateway's own word on what is down
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return f"the gateway at {gateway} did not answer in time", "try again in a moment"
    details = error.details() or code.name.lower().replace("_", " ")
    if code == grpc.StatusCode.UNAUTHENTICATED:
        return (f"the gateway refused the token this command sent ({details}): it is corrupted, "
                "expired or from another server",
                "take the seat again with `tabletop join MATCH --name NAME` (or remove that match "
                "from ~/.tabletop/seats.json); a session is renewed by signing in again")
    reason, _ = error_info(error)
    step = RULE_STEPS.get(reason) or STEPS.get(code, "")
    if reason and reason != code.name and reason not in RULE_STEPS:
        details = f"{details} (rule {reason})"
    return details, step


async def words_of(g: Gateway, game: str) -> GameWords:
    """The game's words as the gateway serves them; this build's own when the gateway predates
    DescribeGame. Raises the call's error for a game the gateway does not host."""
    try:
        reply = await g.stub.DescribeGame(pb.DescribeGameRequest(game=game))
    except grpc.aio.AioRpcError as error:
        if error.code() != grpc.StatusCode.UNIMPLEMENTED:
            raise
        try:
            return game_words(game)
        except registry.UnknownGame:
            raise error from None
    return from_message(reply.words)


# What gRPC says when no connection could be made at all (the gateway itself answers
# UNAVAILABLE with its own words, e.g. "the matchmaker service is unavailable").
TRANSPORT = ("failed to connect", "connection refused", "dns resolution failed", "socket closed",
             "connection reset", "unavailable to connect", "no route to host")


def _unreachable(error: grpc.aio.AioRpcError) -> bool:
    details = (error.details() or "").lower()
    return not details or any(words in details for words in TRANSPORT)
