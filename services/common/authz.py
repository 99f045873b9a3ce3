"""Which platform identity may call which internal method: one table, checked in one place.

The table is the real call graph (who dials whom in this repository), so a
process that is taken over can do no more than its own job needs: only the
match service asks for seeds and reveals; rolls, shuffles and deals are the
match's, and a rules process's only under the match's grant for the move it
decides (services/common/grants.py, checked by the dice and the deck); the
deck asks the dice for the permutations of hidden shuffles (services/deck/servicer.py
DicePermuter); the gateway asks the rules only to describe a game (its seats
and option schema). A method missing from the table is refused to everyone.
The gRPC server interceptor (grpc_server.py) checks remote calls against the
peer's certificate; the in-process transport (transport.py InProcess) checks
in-process calls against the process's own identity.
"""

from __future__ import annotations

from collections.abc import Mapping

from services.common.errors import PermissionDenied

MATCH = "tabletop.match.v1.MatchService"
DICE = "tabletop.dice.v1.DiceService"
DECK = "tabletop.deck.v1.DeckService"
RULES = "tabletop.rules.v1.RulesService"
MATCHMAKER = "tabletop.matchmaker.v1.MatchmakerService"


def _methods(service: str, callers: set[str], *names: str) -> dict[str, frozenset[str]]:
    return {f"/{service}/{name}": frozenset(callers) for name in names}


POLICY: Mapping[str, frozenset[str]] = {
    **_methods(DICE, {"match"}, "CommitSeed", "RevealSeed"),
    # A rules process rolls, permutes, shuffles, deals and puts only under the match's
    # grant, which the dice and the deck check (services/common/grants.py).
    **_methods(DICE, {"match", "rules"}, "RollDice"),
    # Hidden shuffles: the deck permutes cards with the dice's permutation for the draw number.
    **_methods(DICE, {"match", "deck", "rules"}, "Permute"),
    # A batch is open to whoever may call some of its methods; each call in it is then
    # checked on its own (services/common/batch.py).
    **_methods(DICE, {"match", "deck", "rules"}, "Batch"),
    **_methods(DECK, {"match", "rules"}, "Batch"),
    **_methods(RULES, {"match"}, "Batch"),
    **_methods(MATCH, {"gateway", "matchmaker"}, "Batch"),
    **_methods(DECK, {"match", "rules"}, "ShufflePile", "DrawCards", "PutCards"),
    **_methods(DECK, {"match"}, "ReleaseMatch"),
    # The gateway lists games and checks a queued table against the declared seats and options.
    **_methods(RULES, {"match", "gateway"}, "DescribeGame"),
    **_methods(RULES, {"match"}, "Setup", "Decide", "Replay", "ListLegalActions", "GetView", "GetPosition"),
    # The matchmaker forms matches (one write each; it seals a job's match id with a create
    # when it gives the tickets back) and plays backfill bots.
    **_methods(
        MATCH, {"gateway", "matchmaker"},
        "CreateMatch", "JoinMatch", "LeaveMatch", "StartMatch", "GetMatch", "ListLegalActions", "SubmitAction",
    ),
    **_methods(MATCH, {"matchmaker"}, "FormMatch", "FormMatches"),
    # Take-backs are a person's: the gateway's alone (bots never undo).
    **_methods(MATCH, {"gateway"}, "UndoActions"),
    # A whole position holds every seat's secrets: only the gateway, which shows each viewer its part.
    **_methods(MATCH, {"gateway"}, "ListMatches", "GetPosition"),
    # Views: the gateway shows each viewer its own; the matchmaker's search bots read a bot seat's
    # own view only (the match service refuses it any other: services/match/servicer.py).
    **_methods(MATCH, {"gateway", "matchmaker"}, "GetView"),
    **_methods(
        MATCHMAKER, {"gateway"}, "FindMatch", "WatchTicket", "Queue", "CancelTicket", "GetRating", "ListLeaderboard"
    ),
}



def _exchanges(policy: Mapping[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    """Each service's Exchange stream (services/common/mux.py), open to whoever may call
    some method of that service: every call on the stream is then checked on its own."""
    callers: dict[str, set[str]] = {}
    for method, allowed_callers in policy.items():
        service = method.split("/")[1]
        if service in (MATCH, DICE, DECK, RULES):  # the services with an Exchange
            callers.setdefault(service, set()).update(allowed_callers)
    return {f"/{service}/Exchange": frozenset(names) for service, names in callers.items()}


POLICY = {**POLICY, **_exchanges(POLICY)}


def allowed(method: str, caller: str) -> bool:
    """`method` is the full gRPC name, "/package.Service/Method"."""
    return caller in POLICY.get(method, frozenset())


def check(method: str, caller: str) -> None:
    if not allowed(method, caller):
        # Name the method the caller asked for, nothing about who may call it.
        raise PermissionDenied(f"this caller may not call {method.rsplit('/', 1)[-1]}", "auth.method_denied")
