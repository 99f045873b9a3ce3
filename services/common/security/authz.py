"""Which platform identity may call which internal method: one table, checked in one place.

The table is the real call graph (who dials whom in this repository), so a
process that is taken over can do no more than its own job needs: only the
match service asks for seeds and reveals; rolls, shuffles and deals are the
match's, and a rules process's only under the match's grant for the move it
decides (services/common/security/grants.py, checked by the dice and the deck); the
deck asks the dice for the permutations of hidden shuffles (services/deck/servicer.py
DicePermuter); the gateway asks the rules only to describe a game (its seats
and option schema). A method missing from the table is refused to everyone.
The gRPC server interceptor (grpc_server.py) checks remote calls against the
peer's certificate; the in-process transport (transport.py InProcess) checks
in-process calls against the process's own identity.

A caller written `name:bots` may call the method only for a seat one of its own
bots holds (a `bot-` player, services/common/players.py): the method is its job
for those seats alone. The service that owns the seats enforces it per call,
asking `any_seat` (services/match/servicer.py), since only it knows who holds a seat.
"""

from __future__ import annotations

from collections.abc import Mapping

from services.common.errors import PermissionDenied
from services.common.security.pki import IDENTITIES

MATCH = "tabletop.match.v1.MatchService"
DICE = "tabletop.dice.v1.DiceService"
DECK = "tabletop.deck.v1.DeckService"
RULES = "tabletop.rules.v1.RulesService"
MATCHMAKER = "tabletop.matchmaker.v1.MatchmakerService"

BOTS = ":bots"  # the suffix of a caller held to the seats its own bots hold

# service -> method -> who may call it (space-separated platform identities), and why.
TABLE: Mapping[str, Mapping[str, str]] = {
    DICE: {
        "CommitSeed": "match",  # a new match's seed; its commitment is public from the first event
        "RevealSeed": "match",  # once the match has ended (the dice refuse it before)
        # Rolls are the match's: it rolls from windows of them (OpenWindow: the next rolls of
        # one match), and hands a rules process the slice it needs to roll a move's chance.
        "RollDice": "match",
        "OpenWindow": "match",
        # A rules process permutes, shuffles, deals and puts only under the match's grant,
        # which the dice and the deck check (services/common/security/grants.py); the deck's hidden
        # shuffles use the dice's permutation, asked as the deck itself.
        "Permute": "match deck rules",
        # A batch is open to whoever may call some of its methods; each call in it is then
        # checked on its own (services/common/rpc/batch.py).
        "Batch": "match deck rules",
    },
    DECK: {
        "ShufflePile": "match rules",
        "DrawCards": "match rules",
        "PutCards": "match rules",
        "ReleaseMatch": "match",  # a finished match's piles
        "Batch": "match rules",
    },
    RULES: {
        "DescribeGame": "match gateway",  # the gateway lists games, checks a table's seats and options
        "Setup": "match",
        "Decide": "match",
        "Replay": "match",
        "ListLegalActions": "match",
        "GetView": "match",
        "GetPosition": "match",  # a whole position holds every seat's secrets
        "Batch": "match",
    },
    MATCH: {
        # The matchmaker seals a job's match id with an empty lobby when it gives the
        # tickets back (services/matchmaker/formation.py); it seats no one in a lobby.
        "CreateMatch": "gateway matchmaker",
        # Seats in a lobby are people's, one at a time through the gateway. The matchmaker
        # seats players only by forming a new started match (FormMatch): it can put no one
        # in a table that exists, and bots only ever sit where it formed them.
        "JoinMatch": "gateway",
        "LeaveMatch": "gateway",
        "StartMatch": "gateway",  # a formed match is started by its FormMatch
        "FormMatch": "matchmaker",
        "FormMatches": "matchmaker",
        "GetMatch": "gateway matchmaker",  # the public summary
        # The matchmaker plays backfill bots: it reads and acts for its bots' seats, no other.
        "ListLegalActions": "gateway matchmaker:bots",
        "SubmitAction": "gateway matchmaker:bots",
        "GetView": "gateway matchmaker:bots",  # a bot seat's own current view (the search bots)
        "UndoActions": "gateway",  # take-backs are a person's: bots never undo
        "ListMatches": "gateway",
        "GetPosition": "gateway",  # every seat's view: the gateway shows each viewer its part
        "Batch": "gateway matchmaker",
    },
    MATCHMAKER: {
        "FindMatch": "gateway",
        "WatchTicket": "gateway",
        "Queue": "gateway",
        "CancelTicket": "gateway",
        "GetRating": "gateway",
        "ListLeaderboard": "gateway",
    },
}
# The services with an Exchange stream (services/common/rpc/mux.py).
EXCHANGED = (MATCH, DICE, DECK, RULES)


def _rows(table: Mapping[str, Mapping[str, str]]) -> dict[str, list[str]]:
    """Each method's full gRPC name with its callers as written; an unknown identity fails at import."""
    rows = {f"/{service}/{method}": callers.split() for service, methods in table.items()
            for method, callers in methods.items()}
    for method, callers in rows.items():
        unknown = {c.removesuffix(BOTS) for c in callers} - set(IDENTITIES)
        if unknown or not callers:
            raise ValueError(f"{method}: callers must be platform identities ({', '.join(IDENTITIES)}), "
                             f"not {callers!r}")
    return rows


def _exchanges(policy: Mapping[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    """Each service's Exchange stream, open to whoever may call some method of that
    service: every call on the stream is then checked on its own."""
    callers: dict[str, set[str]] = {}
    for method, allowed_callers in policy.items():
        service = method.split("/")[1]
        if service in EXCHANGED:
            callers.setdefault(service, set()).update(allowed_callers)
    return {f"/{service}/Exchange": frozenset(names) for service, names in callers.items()}


_ROWS = _rows(TABLE)
_CALLS = {method: frozenset(c.removesuffix(BOTS) for c in callers) for method, callers in _ROWS.items()}
POLICY: Mapping[str, frozenset[str]] = {**_CALLS, **_exchanges(_CALLS)}
"""Full method name -> the identities that may call it (seat limits aside)."""
BOT_SEATS: Mapping[str, frozenset[str]] = {
    method: frozenset(c.removesuffix(BOTS) for c in callers if c.endswith(BOTS))
    for method, callers in _ROWS.items()
    if any(c.endswith(BOTS) for c in callers)
}
"""Full method name -> the callers that may call it only for their own bots' seats."""


def allowed(method: str, caller: str) -> bool:
    """`method` is the full gRPC name, "/package.Service/Method"."""
    return caller in POLICY.get(method, frozenset())


def any_seat(method: str, caller: str) -> bool:
    """Whether `caller` may call `method` for any seat (else: at most for its bots' seats)."""
    return allowed(method, caller) and caller not in BOT_SEATS.get(method, frozenset())


def check(method: str, caller: str) -> None:
    if not allowed(method, caller):
        # Name the method the caller asked for, nothing about who may call it.
        raise PermissionDenied(f"this caller may not call {method.rsplit('/', 1)[-1]}", "auth.method_denied")
