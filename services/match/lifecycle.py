"""The match lifecycle: a pure domain of frozen values.

`Match` is what the platform derives from a match log. The decide functions
check a command against a match and answer the platform events it causes (or
refuse it, naming the rule); `evolve` folds one platform event into a new
match. The live path and the rebuild path both go through `evolve`, so a
rebuilt match equals the live one. Game events are folded by the game's rules
(`with_position` takes what they answer); nothing here does I/O.

Platform events are the log's own messages (events.proto). They are read and
built here, never changed once built; the generated `MatchRecord` is only the
snapshot and wire form (services/match/records.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from types import MappingProxyType
from typing import TypeVar

from google.protobuf.message import Message
from tabletop.common.v1 import chance_pb2, common_pb2
from tabletop.match.v1 import events_pb2 as ev

from contract.payloads import PLATFORM_EVENTS
from services.common import draws
from services.common.draws import Pile
from services.common.errors import FailedPrecondition, InvalidArgument, PermissionDenied
from services.games.common.values import replace
from services.match.clocks import Clock, folded
from services.match.undo import CLEAR, UndoTrack

__all__ = ["PLATFORM_EVENTS"]  # the match's own events, named where every payload is listed

T = TypeVar("T")


class Status(IntEnum):
    """Where a match is in its life; numbered as the contract's MatchStatus."""

    NONE = 0
    LOBBY = 1
    ACTIVE = 2
    FINISHED = 3


_STATUS_WORDS = {Status.LOBBY: "in the lobby", Status.ACTIVE: "being played", Status.FINISHED: "finished"}
# The outcome detail of a lobby closed for idleness (LobbyExpired): it ends FINISHED
# with no ranking, the terminal status every client and watcher already knows (a
# status of its own would leave them waiting for a FINISHED that never comes).
EXPIRED_REASON = "lobby_expired"


@dataclass(frozen=True)
class Turn:
    """Who the rules ask next: seats, or the chance player with its request."""

    seats: tuple[int, ...] = ()
    chance: chance_pb2.ChanceRequest | None = None
    finished: bool = False


@dataclass(frozen=True)
class Holder:
    """Who a seat call claims holds the seat (from a seat token)."""

    player_id: str
    tenure: int


@dataclass(frozen=True)
class Match:
    match_id: str
    version: int = 0
    game: str = ""
    config: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    seat_count: int = 0
    # Per seat: the player holding it ("" while free), how many times it has been
    # taken, and its holder's display name.
    players: tuple[str, ...] = ()
    tenures: tuple[int, ...] = ()
    names: tuple[str, ...] = ()
    status: Status = Status.NONE
    seed_commitment: str = ""
    # The next draw number for dice, permutations and shuffles.
    next_counter: int = 0
    piles: tuple[Pile, ...] = ()
    # The engine's opaque state; None before the start.
    engine_state: bytes | None = None
    turn: Turn = Turn()
    outcome: common_pb2.Outcome | None = None
    # Turn clocks (clocked matches, once started): as the last ClockSet left them.
    clock: Clock | None = None
    # Whose last actions may be taken back (services/match/undo.py).
    undo: UndoTrack = CLEAR

    def tenure(self, seat: int) -> int:
        """How many times `seat` has been taken."""
        return self.tenures[seat] if seat < len(self.tenures) else 0

    def name(self, seat: int) -> str:
        return self.names[seat] if seat < len(self.names) else ""

    def pile(self, name: str) -> Pile | None:
        return next((p for p in self.piles if p.name == name), None)

    @property
    def full(self) -> bool:
        return "" not in self.players

    @property
    def expired(self) -> bool:
        """Closed as an idle lobby (LobbyExpired): nobody ever played it."""
        return self.outcome is not None and self.outcome.detail.get("reason") == EXPIRED_REASON


# ------------------------------------------------------------------ evolve


def evolve(match: Match, event: Message) -> Match:
    """The match after one platform event (its version is the caller's to set)."""
    match event:
        case ev.MatchCreated():
            n = event.seat_count
            return replace(
                match,
                game=event.game,
                config=MappingProxyType(dict(event.config)),
                seat_count=n,
                players=("",) * n,
                tenures=(0,) * n,
                names=("",) * n,
                status=Status.LOBBY,
                seed_commitment=event.seed_commitment,
            )
        case ev.PlayerJoined():
            # Logs written before tenures were recorded count one per join.
            tenure = event.tenure or match.tenure(event.seat) + 1
            return _seat(match, event.seat, event.player_id, tenure, event.display_name)
        case ev.PlayerLeft():
            return _seat(match, event.seat, "", match.tenure(event.seat), "")
        case ev.MatchStarted():
            return replace(match, status=Status.ACTIVE)
        case ev.ChanceResolved():
            return chance_resolved(match, (event,))
        case ev.MatchEnded():
            return replace(match, status=Status.FINISHED, outcome=_copy(event.outcome))
        case ev.ClockSet():
            return replace(match, clock=folded(event))
        case ev.LobbyExpired():
            closed = common_pb2.Outcome(detail={"reason": EXPIRED_REASON, "idle_seconds": str(event.idle_seconds)})
            return replace(match, status=Status.FINISHED, outcome=closed)
        case _:
            # SeedRevealed and ClockExpired change nothing the platform derives
            # (a timeout's move and its clock follow as events of their own).
            return match


def with_position(
    match: Match, engine_state: bytes, turn: Turn, outcome: common_pb2.Outcome | None
) -> Match:
    """The match once its game has moved (set up, decided or replayed by the rules)."""
    return replace(match, engine_state=engine_state, turn=turn, outcome=match.outcome if outcome is None else outcome)


def restored(match: Match, undone: ev.ActionsUndone) -> Match:
    """The match once a seat took back actions: the game as it stood at `to_version`
    (an undo never crosses chance or the end, so nothing else differs). In a clocked
    match the undo's batch closes with the clocks of `to_version`, the undoer charged
    for the time since (services/match/clocks.py `restore`): a ClockSet of its own."""
    return replace(match, engine_state=undone.state, turn=Turn(seats=tuple(undone.seats)))


def _seat(match: Match, seat: int, player_id: str, tenure: int, name: str) -> Match:
    # Matches rebuilt from snapshots older than tenures and names lack them.
    tenures = _padded(match.tenures, match.seat_count, 0)
    names = _padded(match.names, match.seat_count, "")
    return replace(
        match,
        players=_put(match.players, seat, player_id),
        tenures=_put(tenures, seat, tenure),
        names=_put(names, seat, name),
    )


def chance_resolved(match: Match, events: Iterable[ev.ChanceResolved]) -> Match:
    """The match after a run of ChanceResolved events: one copy for the whole run, as a
    rebuild folds a chance event per roll or deal, hundreds per match (repository.fold
    gathers them; no other event reads the counters or piles they move)."""
    counter, moved = draws.advanced(match.next_counter, match.piles, events)
    if counter == match.next_counter and moved == match.piles:
        return match
    return replace(match, next_counter=counter, piles=moved)


# ------------------------------------------------------------------ decide


def decide_join(match: Match, player_id: str, seat: int | None, display_name: str) -> list[ev.PlayerJoined]:
    require_status(match, Status.LOBBY, "match.not_in_lobby")
    chosen = free_seat(match, seat)
    tenure = match.tenure(chosen) + 1
    return [ev.PlayerJoined(seat=chosen, player_id=player_id, tenure=tenure, display_name=display_name)]


def decide_leave(match: Match, seat: int, holder: Holder | None) -> list[Message]:
    require_status(match, Status.LOBBY, "match.leave_after_start")
    require_seated(match, seat)
    require_holder(match, seat, holder)
    return [ev.PlayerLeft(seat=seat, player_id=match.players[seat])]


def decide_start(match: Match, seat: int | None, holder: Holder | None) -> list[Message]:
    """Start a full lobby. Any seated player may start (or the platform, seat None)."""
    if seat is not None:
        require_seated(match, seat)
        require_holder(match, seat, holder)
    require_status(match, Status.LOBBY, "match.already_started")
    if not match.full:
        raise FailedPrecondition("every seat must be taken before the start", "match.seats_free")
    return [ev.MatchStarted()]


def check_move(match: Match, seat: int, holder: Holder | None) -> None:
    """Refuse an action of `seat` unless the seat's holder is asked to act now."""
    require_status(match, Status.ACTIVE, "match.not_active")
    require_seated(match, seat)
    require_holder(match, seat, holder)
    if seat not in match.turn.seats:
        raise FailedPrecondition(f"seat {seat} is not asked to act now", "match.not_your_turn")


def check_viewer(match: Match, viewer: int | None, holder: Holder | None) -> None:
    """A seat's view is for the seat's current holder while the match is played; a
    spectator's for anyone; once the match has ended its log is public, and so is every
    seat's view."""
    if viewer is not None:
        require_seat_index(match, viewer)
        if match.status != Status.FINISHED:
            require_holder(match, viewer, holder)


def check_replay(match: Match, version: int) -> None:
    """A replay shows a version the log has reached, to whoever may see the viewer's view
    (check_viewer): a seat its own past views during play (seats change hands only in the
    lobby, before there is anything hidden), a spectator the public ones, anyone everything
    once the match has ended."""
    if not 1 <= version <= match.version:
        raise InvalidArgument(f"at_version must be between 1 and {match.version}", "at_version")


def decide_expiry(match: Match, seen_version: int, idle_seconds: int) -> list[ev.LobbyExpired]:
    """Close a lobby found idle at `seen_version`: the wake-up list (services/match/deadlines.py)
    says no lobby command has been written for `idle_seconds` since; a match that moved
    on since (someone joined, left or started it) is no longer idle, and only a lobby
    expires."""
    require_status(match, Status.LOBBY, "match.not_in_lobby")
    if match.version != seen_version:
        raise FailedPrecondition(f"match {match.match_id} changed since it was found idle", "match.lobby_active")
    return [ev.LobbyExpired(idle_seconds=idle_seconds)]


def lobby_wake_ms(now_ms: int, idle_seconds: float) -> int:
    """When a lobby written to at `now_ms` is idle, if nothing is written to it again."""
    return now_ms + int(idle_seconds * 1000)


def ending(match: Match) -> ev.MatchEnded | None:
    """The event that closes a game its rules have scored, once."""
    if match.outcome is not None and match.status == Status.ACTIVE:
        return ev.MatchEnded(outcome=match.outcome)
    return None


# ------------------------------------------------------------------ rules of a seat call


def require_status(match: Match, status: Status, rule: str) -> None:
    if match.status == status:
        return
    if match.expired:
        # One rule for every command on a lobby closed for idleness: create another.
        raise FailedPrecondition(
            f"match {match.match_id} expired in the lobby; create a new one", "match.lobby_expired"
        )
    raise FailedPrecondition(f"match {match.match_id} is {_STATUS_WORDS.get(match.status, 'unknown')}", rule)


def require_seat_index(match: Match, seat: int) -> None:
    if not 0 <= seat < match.seat_count:
        raise InvalidArgument(f"seat {seat} does not exist (0-{match.seat_count - 1})", "seat")


def require_seated(match: Match, seat: int) -> None:
    require_seat_index(match, seat)
    if not match.players[seat]:
        raise PermissionDenied(f"seat {seat} is not taken", "match.seat_free")


def free_seat(match: Match, wanted: int | None) -> int:
    if wanted is not None:
        require_seat_index(match, wanted)
        if match.players[wanted]:
            raise FailedPrecondition(f"seat {wanted} is taken", "match.seat_taken")
        return wanted
    for seat, player in enumerate(match.players):
        if not player:
            return seat
    raise FailedPrecondition("the match is full", "match.full")


def require_holder(match: Match, seat: int, holder: Holder | None) -> None:
    """A seat call's claimed holder must be the seat's current one (same player, same tenure)."""
    if holder is None or not holder.player_id:
        return
    require_seat_index(match, seat)
    if match.players[seat] != holder.player_id or match.tenure(seat) != holder.tenure:
        raise PermissionDenied(f"this seat token no longer holds seat {seat}", "auth.seat_changed")


# ------------------------------------------------------------------ helpers


def _put(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*values[:index], value, *values[index + 1 :])


def _padded(values: tuple[T, ...], length: int, filler: T) -> tuple[T, ...]:
    return values + (filler,) * (length - len(values))


def _copy(outcome: common_pb2.Outcome) -> common_pb2.Outcome:
    """A copy of a submessage, so the match shares nothing with the event it came from."""
    fresh = common_pb2.Outcome()
    fresh.CopyFrom(outcome)
    return fresh
