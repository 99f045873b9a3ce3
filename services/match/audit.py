"""Verifying a finished match: its chance recomputed from the seed, its game re-derived.

`verify` is what `tabletop verify` runs, in process and offline, on the whole
log of a finished match (an archive from `tabletop admin export`, or GetMatchLog
once the match has ended, when every seat's events are public):

- the dice verifier (services/dice/verify.py) recomputes every roll,
  permutation, shuffle and deal from the revealed seed and its commitment;
- the audit walks the log as the match service wrote it and re-derives the game
  with its pure engine (services/games, through the registry): MatchStarted
  sets the engine up; at every ChanceResolved the engine's pending request must
  be the logged one, and the engine's events for the seed's outcome (not the
  logged one) must be the game events that follow; every other run of game
  events must be what legal moves of the seats asked produce
  (services/match/rederive.py).

Platform events are held to the rules that wrote them: joins, leaves and the
start to the lobby's (services/match/lifecycle.py); an UndoPoint to its seat,
the number of events of its move and a move that asks no chance and ends
nothing; an ActionsUndone to the undo track (services/match/undo.py), the state
and seats at the version it names; a ClockSet to the clock arithmetic
(services/match/clocks.py: `tick`, with the mover the re-derivation found, or
after an undo `restore`, the clocks of its version); a
ClockExpired to the running deadline, the table's policy and the move that
policy makes (or the forfeit that follows); MatchEnded to the engine's result
or the forfeit's. Each difference names the version, the event and the field
with both values: only a finished match is verified, and its log is public.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from google.protobuf.message import DecodeError, Message
from tabletop.common.v1 import chance_pb2, common_pb2
from tabletop.match.v1 import events_pb2 as ev

from services.common import draws
from services.common.audience import Audience
from services.common.errors import ServiceError
from services.common.store.event_store import StoredEvent
from services.common.table_options import game_config
from services.dice.verify import Report
from services.dice.verify import verify as recompute
from services.games import registry
from services.games.common.engine import InvalidConfig, Outcome
from services.match import clocks, lifecycle, undo
from services.match.audit_clocks import forfeited, timeout_move, wanted_clocks
from services.match.lifecycle import Match, Status
from services.match.rederive import (
    ABSENT,
    REDACTED,
    WHOLE,
    Difference,
    Divergence,
    Entry,
    Expected,
    Game,
    derive_chance,
    derive_moves,
    field_differences,
    message_differences,
)

__all__ = [
    "REDACTED", "WHOLE", "Audit", "Difference", "Entry", "Verdict", "audit", "from_store", "verify", "with_gaps",
]

PLATFORM = "tabletop.match.v1."
_NAMES = {cls.DESCRIPTOR.full_name: cls.DESCRIPTOR.name for cls in lifecycle.PLATFORM_EVENTS.values()}
# What may follow MatchEnded: the seed, and the clocks the last batch closes with.
_AFTER_END = frozenset({ev.SeedRevealed.DESCRIPTOR.full_name, ev.ClockSet.DESCRIPTOR.full_name})


@dataclass
class Audit:
    """What re-deriving the game checked, and every difference it found."""

    moves: int = 0  # seat actions found to produce the logged events
    chance_outcomes: int = 0  # chance outcomes fed to the engine
    game_events: int = 0  # game events re-derived
    undos: int = 0
    timeouts: int = 0
    differences: list[Difference] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.differences


@dataclass(frozen=True)
class Verdict:
    """The chance recomputed and the game re-derived: honest only if both hold."""

    chance: Report
    game: Audit

    @property
    def ok(self) -> bool:
        return self.chance.ok and self.game.ok

    @property
    def problems(self) -> list[str]:
        return [*self.chance.problems, *(str(d) for d in self.game.differences)]


def verify(entries: Sequence[Entry], match_id: str = "") -> Verdict:
    """Check the whole log of a finished match (`match_id` re-derives a timed-out seat's
    bot move, which it seeds)."""
    chance = recompute((e.version, e.type, e.data) for e in entries if e.form == WHOLE)
    return Verdict(chance, audit(entries, chance.outcomes, match_id))


def audit(entries: Sequence[Entry], outcomes: dict[int, chance_pb2.ChanceOutcome], match_id: str = "") -> Audit:
    """Re-derive the game of a log, feeding the engine `outcomes` (the seed's, by version
    of their ChanceResolved) where known, else the logged ones."""
    walk = _Walk(match_id, outcomes)
    walk.run(list(entries))
    return walk.report


def from_store(events: Iterable[StoredEvent]) -> list[Entry]:
    """The entries of events read from the store (an archive holds them whole)."""
    return [
        Entry(e.version, e.type, e.data, Audience(e.audience), e.seat, WHOLE, e.redacted_type, e.redacted)
        for e in events
    ]


def with_gaps(entries: Iterable[Entry]) -> list[Entry]:
    """`entries` with an ABSENT entry at each version a reader was shown nothing of."""
    filled: list[Entry] = []
    for entry in entries:
        filled += [Entry(v, "", b"", form=ABSENT) for v in range(len(filled) + 1, entry.version)]
        filled.append(entry)
    return filled


@dataclass
class _Batch:
    """What one batch (one append, closed by a ClockSet in a clocked match) has shown so far."""

    movers: frozenset[int] | None = None  # the seats whose move opened it; None: nobody's move
    deadline: int | None = None  # a timeout's deadline
    undone: ev.ActionsUndone | None = None


class _Walk:
    """The log read in order, the game's state re-derived along it."""

    def __init__(self, match_id: str, outcomes: dict[int, chance_pb2.ChanceOutcome]) -> None:
        self.report = Audit()
        self.match_id = match_id
        self.outcomes = outcomes
        self.match = Match(match_id)
        self.game: Game | None = None
        self.state: object | None = None  # the game's state (a state of whichever game the match plays)
        self.states: dict[int, object | None] = {0: None}  # the engine state after each version where it is known
        self.clocks: dict[int, clocks.Clock | None] = {0: None}  # the clocks after each version
        self.track = undo.CLEAR
        self.batch = _Batch()
        self.expected: Expected | None = None  # the move an UndoPoint or a timeout announced
        self.forfeit: ev.ClockExpired | None = None
        self.previous = ""  # the type of the entry before
        self.stopped = False  # re-derivation met a difference it cannot go past

    def fail(self, version: int, event: str, what: str, found: Sequence[tuple[str, str, str]] = ()) -> None:
        name, logged, derived = found[0] if found else ("", "", "")
        self.report.differences.append(Difference(version, _NAMES.get(event, event), what, name, logged, derived))

    def diverged(self, difference: Difference) -> None:
        self.report.differences.append(difference)
        self.stopped = True

    def run(self, entries: list[Entry]) -> None:
        index = 0
        while index < len(entries):
            entry = entries[index]
            if entry.version != index + 1:
                self.fail(entry.version, entry.type, f"out of place: version {index + 1} was expected here")
                return
            taken = self._step(entries, index)
            for seen in entries[index : index + taken]:
                self.track = undo.step(self.track, seen.version, seen.type or "hidden", seen.data)
                self.previous = seen.type
                self.clocks[seen.version] = self.match.clock
            index += taken
        last = entries[-1].version if entries else 0
        if self.expected is not None and not self.stopped:
            self.fail(last + 1, "UndoPoint", f"the log ends before seat {self.expected.seat}'s announced move")
        if self.match.status != Status.FINISHED:
            self.fail(last, entries[-1].type if entries else "", "the log has no MatchEnded: the match is not over")

    def _step(self, entries: list[Entry], index: int) -> int:
        """Check the entry at `index` (and the game events it explains); answers how many it took."""
        entry = entries[index]
        if self.forfeit is not None and entry.type != ev.MatchEnded.DESCRIPTOR.full_name:
            self.fail(entry.version, entry.type, "a forfeit must end the match at once")
            self.forfeit = None
        if self.game is not None and self.game.is_event(entry):
            run = _run(self.game, entries, index)
            self._moves(run)
            return len(run)
        if self.previous == ev.MatchEnded.DESCRIPTOR.full_name and entry.type != ev.SeedRevealed.DESCRIPTOR.full_name:
            self.fail(entry.version, entry.type, "the seed must be revealed right after MatchEnded")
        if self.match.status == Status.FINISHED and entry.type not in _AFTER_END:
            self.fail(entry.version, entry.type, "an event after the match ended")
        if self.expected is not None and not self.stopped:
            missing = f"seat {self.expected.seat}'s move is missing here ({self.expected.why})"
            self.diverged(Difference(entry.version, _NAMES.get(entry.type, entry.type), missing))
        self.expected = None if self.stopped else self.expected
        handler = _HANDLERS.get(entry.type)
        if handler is None:
            if not (self.game is None and self.stopped):  # an unknown game's events say nothing more
                self.fail(entry.version, entry.type, "neither a platform event nor an event of this match's game")
            return 1
        message = _parse(handler[0], entry)
        if message is None:
            self.fail(entry.version, entry.type, "undecodable")
            return 1
        if isinstance(message, ev.ChanceResolved):
            outcome = self._chance(entry, message)
            run = _run(self.game, entries, index + 1) if self.game is not None else []
            self._moves(run, outcome, entry.version)
            return 1 + len(run)
        step = handler[1]
        assert step is not None  # ChanceResolved's, the one without, is run above
        step(self, entry, message)
        self._keep(entry.version)
        return 1

    def _keep(self, version: int) -> None:
        if not self.stopped:
            self.states[version] = self.state

    # ------------------------------------------------------------ the game's events

    def _moves(self, run: list[Entry], outcome: chance_pb2.ChanceOutcome | None = None, at: int = 0) -> None:
        """A run of game events: the chance outcome's (if any), then seat moves."""
        if self.stopped:
            return
        if self.game is None or self.state is None:
            if run:
                self.diverged(Difference(run[0].version, "game event", "a game event before the match started"))
            return
        try:
            taken = 0
            if outcome is not None:
                self.state, taken = derive_chance(self.game, self.state, outcome, run, at)
                self.report.chance_outcomes += 1
                self._keep(run[taken - 1].version if taken else at)
            if taken < len(run):
                self._seat_moves(run[taken:])
        except Divergence as divergence:
            self.diverged(divergence.difference)
            return
        self.report.game_events += len(run)

    def _seat_moves(self, run: list[Entry]) -> None:
        assert self.game is not None
        expected, self.expected = self.expected, None
        moves = derive_moves(self.game, self.state, run, expected)
        for position, state in moves.reached.items():
            if position:
                self.states[run[position - 1].version] = state
        if expected is not None and expected.count is not None:
            self._undoable(run[0].version - 1, moves.reached[expected.count])
        if self.batch.movers is None and self.batch.deadline is None:
            self.batch.movers = moves.first_seats
        self.state = moves.state
        self.report.moves += moves.moves

    def _undoable(self, version: int, after: object) -> None:
        """The move an UndoPoint (at `version`) opens asks no chance and ends nothing."""
        assert self.game is not None
        if self.game.engine.to_move(after).chance is not None or self.game.engine.result(after) is not None:
            self.fail(version, ev.UndoPoint.DESCRIPTOR.full_name,
                      "the move it opens asks for chance or ends the game: it could not be taken back")

    def _chance(self, entry: Entry, resolved: ev.ChanceResolved) -> chance_pb2.ChanceOutcome | None:
        """Check a resolution against the engine's request and the match's piles; answers
        the outcome to feed the engine: the seed's where the dice verifier made it."""
        name = entry.type
        wanted = self.game.chance_request(self.state) if self.game is not None and self.state is not None else None
        placed = self._placed(entry, resolved)
        self.match = lifecycle.evolve(self.match, resolved)
        if self.stopped:
            return None
        if wanted is None:
            self.diverged(Difference(entry.version, _NAMES[name], "the engine asks for no chance here"))
            return None
        if resolved.request != wanted:
            found = message_differences(resolved.request, wanted, "request")
            self.fail(entry.version, name, "not the chance the engine asks for", found)
            self.stopped = True
            return None
        if placed is not None:
            self.fail(entry.version, name, "not the pile position the match had reached", placed)
        return self.outcomes.get(entry.version, resolved.outcome)

    def _placed(self, entry: Entry, resolved: ev.ChanceResolved) -> list[tuple[str, str, str]] | None:
        """Where a deal or a put read its pile, against where the match's piles stood."""
        if resolved.request.WhichOneof("kind") not in ("draw_cards", "put_cards"):
            return None
        try:
            placed = draws.placed(resolved.request, self.match.next_counter, self.match.pile)
        except ServiceError as refused:
            return [("request", "a deal", refused.message)]
        logged = draws.Resolution(placed.counter, resolved.pile_counter, resolved.pile_offset)
        return field_differences(logged, placed) or None

    # ------------------------------------------------------------ platform events

    def _created(self, entry: Entry, created: ev.MatchCreated) -> None:
        if entry.version != 1:
            self.fail(entry.version, entry.type, "a match is created once, by its first event")
            return
        try:
            self.game = Game(registry.game(created.game))
        except registry.UnknownGame:
            unknown = (f"this verifier does not know {created.game!r}, so it cannot re-derive its game "
                       "(TABLETOP_EXTRA_GAMES names the packages of games beyond the built-in ones)")
            self.diverged(Difference(entry.version, "MatchCreated", unknown))
        self.match = lifecycle.evolve(self.match, created)

    def _joined(self, entry: Entry, joined: ev.PlayerJoined) -> None:
        try:
            wanted = lifecycle.decide_join(self.match, joined.player_id, joined.seat, joined.display_name)[0]
        except ServiceError as refused:
            self.fail(entry.version, entry.type, f"the lobby refuses it ({refused.reason})")
        else:
            if joined.tenure not in (0, wanted.tenure):  # logs older than tenures hold none
                self.fail(entry.version, entry.type, "not the seat's next tenure", message_differences(joined, wanted))
        self.match = lifecycle.evolve(self.match, joined)

    def _left(self, entry: Entry, left: ev.PlayerLeft) -> None:
        try:
            wanted = lifecycle.decide_leave(self.match, left.seat, None)[0]
        except ServiceError as refused:
            self.fail(entry.version, entry.type, f"the lobby refuses it ({refused.reason})")
        else:
            if left != wanted:
                self.fail(entry.version, entry.type, "not the seat's holder", message_differences(left, wanted))
        self.match = lifecycle.evolve(self.match, left)

    def _started(self, entry: Entry, started: ev.MatchStarted) -> None:
        try:
            lifecycle.decide_start(self.match, None, None)
        except ServiceError as refused:
            self.fail(entry.version, entry.type, f"the lobby refuses it ({refused.reason})")
        self.match = lifecycle.evolve(self.match, started)
        if self.game is None or self.stopped:
            return
        try:
            self.state = self.game.engine.setup(game_config(self.match.config), self.match.seat_count)
        except InvalidConfig as bad:
            self.diverged(Difference(entry.version, "MatchStarted", f"the game refuses its setup: {bad}"))

    def _undo_point(self, entry: Entry, point: ev.UndoPoint) -> None:
        if self.match.status != Status.ACTIVE:
            self.fail(entry.version, entry.type, "an undo point outside play")
        self.expected = Expected(point.seat, point.events, why="its UndoPoint's move")

    def _undone(self, entry: Entry, undone: ev.ActionsUndone) -> None:
        self.report.undos += 1
        self.batch.undone = undone
        try:
            allowed = undo.check_undo(self.track, undone.seat, undone.count)
        except ServiceError as refused:
            self.fail(entry.version, entry.type, f"an undo the log did not allow ({refused.reason})")
            allowed = undone.to_version
        if allowed != undone.to_version:
            self.fail(entry.version, entry.type, "not where the undo track returns to",
                      [("to_version", str(undone.to_version), str(allowed))])
        if self.stopped or self.game is None:
            return
        if undone.to_version not in self.states or self.states[undone.to_version] is None:
            nowhere = f"v{undone.to_version} is no position between moves to return to"
            self.diverged(Difference(entry.version, "ActionsUndone", nowhere))
            return
        past = self.states[undone.to_version]
        self._restored(entry, undone, past)
        self.state = past

    def _restored(self, entry: Entry, undone: ev.ActionsUndone, past: object) -> None:
        """The state and seats an undo carries are the ones at the version it names."""
        assert self.game is not None
        if entry.form == WHOLE:
            try:
                carried = self.game.codec.decode_state(undone.state)
            except (ValueError, TypeError, KeyError, DecodeError):
                self.fail(entry.version, entry.type, f"its state is not a {self.game.name} state")
            else:
                found = field_differences(carried, past, "state")
                if found:
                    self.fail(entry.version, entry.type, f"its state is not the state at v{undone.to_version}", found)
        seats = self.game.engine.to_move(past).seats
        if tuple(undone.seats) != seats:
            self.fail(entry.version, entry.type, f"not the seats asked at v{undone.to_version}",
                      [("seats", str(tuple(undone.seats)), str(seats))])

    def _clock_set(self, entry: Entry, logged: ev.ClockSet) -> None:
        batch, self.batch = self.batch, _Batch()
        settings = clocks.settings_of(self.match.config)
        before = self.match.clock
        self.match = lifecycle.evolve(self.match, logged)
        if settings is None:
            self.fail(entry.version, entry.type, "a clock in a match without one")
            return
        if batch.deadline is not None and logged.at_ms < batch.deadline:
            self.fail(entry.version, entry.type, "a timeout written before its deadline",
                      [("at_ms", str(logged.at_ms), f"at least {batch.deadline}")])
        if self.stopped:
            return
        undone = batch.undone
        undo = (undone.seat, self.clocks.get(undone.to_version)) if undone is not None else None
        wanted = wanted_clocks(settings, before, logged.at_ms, self._asked(), batch.movers, undo, self.match.seat_count)
        if wanted and logged not in wanted:
            self.fail(entry.version, entry.type, "not what the clocks make of the batch",
                      message_differences(logged, wanted[0]))

    def _asked(self) -> tuple[int, ...]:
        """The seats asked to act as the platform sees them (none during chance or after the end)."""
        if self.match.status != Status.ACTIVE or self.game is None or self.state is None:
            return ()
        turn = self.game.engine.to_move(self.state)
        return turn.seats if turn.chance is None else ()

    def _expired(self, entry: Entry, expired: ev.ClockExpired) -> None:
        self.report.timeouts += 1
        self.batch.deadline, self.batch.movers = expired.deadline_ms, frozenset()
        settings = clocks.settings_of(self.match.config)
        deadline = self.match.clock.deadline(expired.seat) if self.match.clock is not None else None
        if settings is None or deadline is None:
            self.fail(entry.version, entry.type, f"seat {expired.seat}'s clock was not running")
            return
        if deadline != expired.deadline_ms:
            self.fail(entry.version, entry.type, "not the seat's deadline",
                      [("deadline_ms", str(expired.deadline_ms), str(deadline))])
        if settings.policy == "forfeit":
            self._policy(entry, expired, "forfeit")
            self.forfeit = expired
            return
        if self.stopped or self.game is None or self.state is None:
            return
        engine = self.game.engine
        legal = engine.legal_actions(self.state, expired.seat)
        policy, move = timeout_move(settings.policy, legal, engine.passes, self.match_id, entry.version, expired.seat)
        self._policy(entry, expired, policy)
        self.expected = Expected(expired.seat, action=move, why=f"the {policy} move its timeout plays")

    def _policy(self, entry: Entry, expired: ev.ClockExpired, wanted: str) -> None:
        if expired.policy != wanted:
            self.fail(entry.version, entry.type, "not the table's timeout policy", [("policy", expired.policy, wanted)])

    def _ended(self, entry: Entry, ended: ev.MatchEnded) -> None:
        forfeit, self.forfeit = self.forfeit, None
        self.match = lifecycle.evolve(self.match, ended)
        if forfeit is not None:
            wanted = forfeited(self.match.seat_count, forfeit.seat)
        elif self.stopped or self.game is None or self.state is None:
            return
        else:
            result = self.game.engine.result(self.state)
            if result is None:
                self.fail(entry.version, entry.type, "the game has not ended here")
                return
            wanted = outcome_message(result)
        found = message_differences(ended.outcome, wanted, "outcome")
        if found:
            what = "not the forfeit's outcome" if forfeit is not None else "not the engine's result"
            self.fail(entry.version, entry.type, what, found)

    def _lobby_expired(self, entry: Entry, expired: ev.LobbyExpired) -> None:
        """A lobby closed for idleness: never played, so nothing of a game follows."""
        if self.match.status != Status.LOBBY:
            self.fail(entry.version, entry.type, "only a lobby expires")
        self.match = lifecycle.evolve(self.match, expired)

    def _seed(self, entry: Entry, revealed: ev.SeedRevealed) -> None:
        if self.previous != ev.MatchEnded.DESCRIPTOR.full_name:
            self.fail(entry.version, entry.type, "the seed is revealed only right after MatchEnded")


def outcome_message(outcome: Outcome) -> common_pb2.Outcome:
    """An engine's outcome as the log records it (services/rules/servicer.py writes it so)."""
    message = common_pb2.Outcome(ranking=outcome.ranking, scores=outcome.scores, detail=dict(outcome.detail))
    if outcome.cooperative_win is not None:
        message.cooperative_win = outcome.cooperative_win
    return message


def _run(game: Game, entries: list[Entry], start: int) -> list[Entry]:
    """The game events from `start` up to the next platform event."""
    end = start
    while end < len(entries) and game.is_event(entries[end]):
        end += 1
    return entries[start:end]


def _parse(cls: type[Message], entry: Entry) -> Message | None:
    try:
        return cls.FromString(entry.data)
    except DecodeError:
        return None


M = TypeVar("M", bound=Message)
# The walk's step for one platform event, given the event's message.
_Step = Callable[[_Walk, Entry, Message], None]


def _handler(cls: type[M], step: Callable[[_Walk, Entry, M], None] | None) -> tuple[type[Message], _Step | None]:
    """The message type of an event and its step, taking the message parsed as that type
    (None for ChanceResolved, which _step runs itself)."""
    if step is None:
        return cls, None

    def run(walk: _Walk, entry: Entry, message: Message) -> None:
        if not isinstance(message, cls):
            raise TypeError(f"{entry.type} parsed as {type(message).__name__}, not {cls.__name__}")
        step(walk, entry, message)

    return cls, run


_HANDLERS: dict[str, tuple[type[Message], _Step | None]] = {
    ev.MatchCreated.DESCRIPTOR.full_name: _handler(ev.MatchCreated, _Walk._created),
    ev.PlayerJoined.DESCRIPTOR.full_name: _handler(ev.PlayerJoined, _Walk._joined),
    ev.PlayerLeft.DESCRIPTOR.full_name: _handler(ev.PlayerLeft, _Walk._left),
    ev.MatchStarted.DESCRIPTOR.full_name: _handler(ev.MatchStarted, _Walk._started),
    ev.ChanceResolved.DESCRIPTOR.full_name: _handler(ev.ChanceResolved, None),
    ev.UndoPoint.DESCRIPTOR.full_name: _handler(ev.UndoPoint, _Walk._undo_point),
    ev.ActionsUndone.DESCRIPTOR.full_name: _handler(ev.ActionsUndone, _Walk._undone),
    ev.ClockSet.DESCRIPTOR.full_name: _handler(ev.ClockSet, _Walk._clock_set),
    ev.ClockExpired.DESCRIPTOR.full_name: _handler(ev.ClockExpired, _Walk._expired),
    ev.MatchEnded.DESCRIPTOR.full_name: _handler(ev.MatchEnded, _Walk._ended),
    ev.SeedRevealed.DESCRIPTOR.full_name: _handler(ev.SeedRevealed, _Walk._seed),
    ev.LobbyExpired.DESCRIPTOR.full_name: _handler(ev.LobbyExpired, _Walk._lobby_expired),
}
