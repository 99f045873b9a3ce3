"""A game's own events re-derived with its engine, from the log's positions.

The match log keeps what each decision caused (the game events), not the move
itself: a chance outcome is logged (ChanceResolved) and the seed recomputes it,
but a seat's action is not. So a run of game events is re-derived as moves: at
each point, some legal action of a seat the engine asks to act must produce
exactly the next events, and the moves must cover the run. The search is cheap
(a few legal actions a position, one `decide` each) and as strong as a logged
action would be: whoever could rewrite the events could rewrite an action beside
them too, and a log is only evidence where it is re-derivable.

Where several parses of a run are possible (one action's events equal to two
others'), every one leads to the same state: a state is the fold of the events
before it. So the search keeps one state per position in the run.

The engine is the pure one from the registry (services/games), run in process.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass

from google.protobuf.message import DecodeError, Message
from tabletop.common.v1 import chance_pb2

from services.common.audience import Audience
from services.games.common import chance, protocodec
from services.games.common.engine import IllegalAction, Visibility, replay
from services.games.registry import GameEntry

# What a reader holds of an event: all of it, its redacted form, or nothing (the
# reader was shown no form of it: a gap in the versions).
WHOLE, REDACTED, ABSENT = "whole", "redacted", "absent"
SHOWN = 80  # characters of a value shown in a difference


@dataclass(frozen=True)
class Entry:
    """One log entry as a verifier reads it (an archive's, or a GetMatchLog answer's)."""

    version: int
    type: str
    data: bytes
    # Who may read it, as the log says (None: the reader was not told).
    audience: Audience | None = None
    seat: int = -1
    form: str = WHOLE
    # The redacted form the store keeps beside a whole hidden event (an archive has it).
    redacted_type: str = ""
    redacted: bytes = b""


@dataclass(frozen=True)
class Difference:
    """One way the log is not what re-deriving the game gives."""

    version: int
    event: str  # the entry's type: a game event's kind, or a platform event's name
    what: str
    field: str = ""  # the field that differs, dotted ("outcome.ranking[1]")
    logged: str = ""
    derived: str = ""

    def __str__(self) -> str:
        text = f"v{self.version} {self.event}: {self.what}"
        if self.field or self.logged or self.derived:
            text += f": {self.field or 'it'} is {self.logged} in the log, {self.derived} re-derived"
        return text


class Divergence(Exception):
    """The game's events cannot be re-derived past this point."""

    def __init__(self, difference: Difference) -> None:
        super().__init__(str(difference))
        self.difference = difference


@dataclass(frozen=True)
class Expected:
    """What the log announces of the first move of a run: whose (UndoPoint, ClockExpired),
    how many events (UndoPoint), which action (a timeout's move)."""

    seat: int
    count: int | None = None
    action: object | None = None
    why: str = ""


@dataclass(frozen=True)
class Candidate:
    """A legal move and the events the engine makes of it."""

    seat: int
    action: object
    events: Sequence[object]


@dataclass
class Moves:
    """A run re-derived as moves: the state after it, and where each move ended."""

    state: object
    # Run position -> the state there, for every position a move ends at.
    reached: dict[int, object] = field(default_factory=dict)
    moves: int = 0
    # The seats whose action can open the run (a clock's mover).
    first_seats: frozenset[int] = frozenset()


class Game:
    """One game's engine and codec, as the verifier compares log entries with them."""

    def __init__(self, entry: GameEntry) -> None:
        self.name = entry.name
        self.engine = entry.engine
        self.codec = entry.codec
        self.event_type = entry.codec.event_message.DESCRIPTOR.full_name
        self._decoded: dict[tuple[str, bytes], object] = {}

    def is_event(self, entry: Entry) -> bool:
        return entry.form == ABSENT or entry.type == self.event_type

    def kind(self, entry: Entry) -> str:
        """The entry's name in a difference: its event's kind where it decodes."""
        decoded = self.decode(entry.data) if entry.form != ABSENT else None
        return type(decoded).__name__ if decoded is not None else (entry.type or "a hidden event")

    def decode(self, data: bytes) -> object | None:
        """A game event from its bytes (None: not one); kept, a log repeats itself."""
        key = (self.event_type, data)
        if key not in self._decoded:
            try:
                self._decoded[key] = self.codec.decode_event(self.codec.event_message.FromString(data))
            except (DecodeError, protocodec.ProtoMismatch):
                self._decoded[key] = None
        return self._decoded[key]

    def chance_request(self, state: object) -> chance_pb2.ChanceRequest | None:
        """The engine's pending chance request as the log records one."""
        request = self.engine.to_move(state).chance
        if request is None:
            return None
        encoded = protocodec.encode_union(request, chance_pb2.ChanceRequest)
        assert isinstance(encoded, chance_pb2.ChanceRequest)
        return encoded

    def candidates(self, state: object, expected: Expected | None) -> Iterator[Candidate]:
        """Every move the engine allows at `state` (only the one `expected` names, if any)."""
        turn = self.engine.to_move(state)
        for seat in turn.seats:
            if expected is not None and seat != expected.seat:
                continue
            named = expected.action if expected is not None else None
            for action in (named,) if named is not None else self.engine.legal_actions(state, seat):
                try:
                    events = self.engine.decide(state, seat, action)
                except IllegalAction:
                    continue
                if events and (expected is None or expected.count in (None, len(events))):
                    yield Candidate(seat, action, events)

    def fits(self, entry: Entry, event: object) -> bool:
        """Whether the logged entry is `event` as its reader is entitled to hold it."""
        return not self.differences(entry, event, first_only=True)

    def differences(self, entry: Entry, event: object, first_only: bool = False) -> list[tuple[str, str, str]]:
        """(field, logged, derived) where the entry is not the engine's `event`."""
        visibility = self.engine.visibility(event)
        hidden = visibility.audience is not Audience.PUBLIC
        if entry.form == ABSENT:
            ok = visibility.audience is Audience.SERVER and self.engine.redact(event) is None
            return [] if ok else [("", "hidden", type(event).__name__)]
        if entry.type != self.event_type:
            return [("type", entry.type, self.event_type)]
        if entry.form == REDACTED and not hidden:
            return [("audience", "hidden", visibility.audience.name.lower())]
        shown = self.engine.redact(event) if entry.form == REDACTED else event
        found = field_differences(self.decode(entry.data), shown, first_only=first_only)
        if not found or not first_only:
            found += self._visibility_differences(entry, visibility, event)
        return found

    def _visibility_differences(
        self, entry: Entry, visibility: Visibility, event: object
    ) -> list[tuple[str, str, str]]:
        if entry.audience is None:
            return []
        seat = visibility.seat if visibility.seat is not None else -1
        found = []
        if entry.audience is not visibility.audience or (visibility.audience is Audience.SEAT and entry.seat != seat):
            found.append(("audience", _audience(entry.audience, entry.seat), _audience(visibility.audience, seat)))
        if entry.form == WHOLE and visibility.audience is not Audience.PUBLIC and entry.redacted_type:
            redacted = self.engine.redact(event)
            logged = self.decode(entry.redacted) if entry.redacted_type == self.event_type else entry.redacted_type
            if logged != redacted:
                found.append(("redacted", _shown(logged), _shown(redacted)))
        return found


def derive_chance(
    game: Game, state: object, outcome: chance_pb2.ChanceOutcome, run: Sequence[Entry], at: int
) -> tuple[object, int]:
    """The state after the engine's events for a chance outcome (ChanceResolved at
    version `at`), checked against the start of `run`; answers how many it took."""
    try:
        move = protocodec.decode_union(outcome, chance.OUTCOME_TYPES)
        events = game.engine.decide(state, chance.CHANCE_SEAT, move)
    except (IllegalAction, protocodec.ProtoMismatch) as refused:
        what = f"the engine refuses the seed's outcome: {refused}"
        raise Divergence(Difference(at, "ChanceResolved", what)) from None
    whats = (f"not what the engine makes of the chance at v{at}", f"the engine makes it of the chance at v{at}")
    _check_exact(game, run, events, whats, at)
    return replay(game.engine, state, events), len(events)


def derive_moves(game: Game, state: object, run: Sequence[Entry], expected: Expected | None = None) -> Moves:
    """`run` (consecutive game events, no chance among them) re-derived as seat moves from
    `state`; raises Divergence at the first entry no legal move explains."""
    found = Moves(state, {0: state})
    counts = {0: 0}
    first: set[int] = set()
    for start in range(len(run)):
        if start not in found.reached:
            continue
        here = found.reached[start]
        for candidate in game.candidates(here, expected if start == 0 else None):
            end = start + len(candidate.events)
            if _matched(game, run, start, candidate.events) < len(candidate.events):
                continue
            if start == 0:
                first.add(candidate.seat)
            if end not in found.reached:
                found.reached[end] = replay(game.engine, here, candidate.events)
                counts[end] = counts[start] + 1
    if len(run) not in found.reached:
        raise Divergence(_unexplained(game, run, found.reached, expected))
    found.state, found.moves, found.first_seats = found.reached[len(run)], counts[len(run)], frozenset(first)
    return found


def _matched(game: Game, run: Sequence[Entry], start: int, events: Sequence[object]) -> int:
    """How many of `events` the run shows from `start` on."""
    for offset, event in enumerate(events):
        if start + offset >= len(run) or not game.fits(run[start + offset], event):
            return offset
    return len(events)


def _check_exact(game: Game, run: Sequence[Entry], events: Sequence[object], whats: tuple[str, str], at: int) -> None:
    matched = _matched(game, run, 0, events)
    if matched < len(events):
        raise Divergence(_difference(game, run, matched, events[matched], whats, at))


def _difference(
    game: Game, run: Sequence[Entry], index: int, event: object, whats: tuple[str, str], before: int
) -> Difference:
    """What differs where the run stops matching the engine's `event`; `whats`: what is
    wrong with a logged event there, and where the engine's comes from if there is none."""
    what, source = whats
    if index >= len(run):
        after = run[-1].version + 1 if run else before + 1
        return Difference(after, type(event).__name__, f"missing from the log: {source}", "", "nothing", _shown(event))
    entry = run[index]
    found = game.differences(entry, event)
    name, logged, derived = found[0] if found else ("", "", "")
    return Difference(entry.version, game.kind(entry), what, name, logged, derived)


def _unexplained(game: Game, run: Sequence[Entry], reached: dict[int, object], expected: Expected | None) -> Difference:
    """The first entry no move explains, told against the move that came nearest: the one
    that matched furthest, then one whose event there is of the logged kind with the
    fewest fields apart (searched again only now: an honest log never gets here)."""
    best: tuple[tuple[int, int, int], int, Candidate] | None = None
    for start, here in reached.items():
        for candidate in game.candidates(here, expected if start == 0 else None):
            matched = _matched(game, run, start, candidate.events)
            if matched == len(candidate.events):
                continue  # a move that fits: where it ends is reached already
            at = start + matched
            apart = game.differences(run[at], candidate.events[matched]) if at < len(run) else []
            same_kind = at < len(run) and not any(name in ("kind", "type") for name, _, _ in apart)
            score = (at, int(same_kind), -len(apart))
            if best is None or score > best[0]:
                best = (score, start, candidate)
    furthest = max(reached)
    if best is not None and best[0][0] >= furthest:
        (at, _, _), start, candidate = best
        whose, action = _whose(game, reached[start], expected if start == 0 else None), _shown(candidate.action)
        whats = (f"no legal action of {whose} produces it (nearest: {action})",
                 f"the nearest legal action of {whose} ({action}) produces it here")
        return _difference(game, run, at, candidate.events[at - start], whats, run[0].version)
    state, entry = reached[furthest], run[furthest]
    turn = game.engine.to_move(state)
    if game.engine.result(state) is not None:
        return Difference(entry.version, game.kind(entry), "a game event after the game has ended")
    if turn.chance is not None:
        what = f"a game event while the engine waits for chance ({type(turn.chance).__name__})"
        return Difference(entry.version, game.kind(entry), what)
    what = f"no legal action of {_whose(game, state, expected)} produces it"
    return Difference(entry.version, game.kind(entry), what)


def _whose(game: Game, state: object, expected: Expected | None) -> str:
    if expected is not None:
        return f"seat {expected.seat} ({expected.why})" if expected.why else f"seat {expected.seat}"
    seats = game.engine.to_move(state).seats
    return "seat " + ", ".join(map(str, seats)) if seats else "any seat"


def field_differences(
    logged: object, derived: object, path: str = "", first_only: bool = False
) -> list[tuple[str, str, str]]:
    """(dotted field, logged, derived) for each leaf where two values differ."""
    if logged == derived:
        return []
    if type(logged) is not type(derived) or logged is None:
        return [(path or "kind", _kind(logged), _kind(derived))]
    found: list[tuple[str, str, str]] = []
    if is_dataclass(logged) and not isinstance(logged, type):
        for item in fields(logged):
            name = f"{path}.{item.name}" if path else item.name
            found += field_differences(getattr(logged, item.name), getattr(derived, item.name), name, first_only)
            if found and first_only:
                break
    elif isinstance(logged, tuple | list) and isinstance(derived, tuple | list) and len(logged) == len(derived):
        for index, (a, b) in enumerate(zip(logged, derived)):
            found += field_differences(a, b, f"{path}[{index}]", first_only)
            if found and first_only:
                break
    return found or [(path or "value", _shown(logged), _shown(derived))]


def message_differences(logged: Message, derived: Message, path: str = "") -> list[tuple[str, str, str]]:
    """(dotted field, logged, derived) for each field where two messages differ."""
    found: list[tuple[str, str, str]] = []
    for item in derived.DESCRIPTOR.fields:
        name = f"{path}.{item.name}" if path else item.name
        found += _value_differences(getattr(logged, item.name), getattr(derived, item.name), name)
    return found


def _value_differences(a: object, b: object, name: str) -> list[tuple[str, str, str]]:
    """One field of two messages of one type, read by name from the descriptor: a scalar,
    a message, a map or a list of either (both values are of the field's kind)."""
    if isinstance(a, Message) and isinstance(b, Message):
        return message_differences(a, b, name)
    if isinstance(a, str | bytes | int | float):
        return [] if a == b else [(name, _shown(a), _shown(b))]
    if isinstance(a, Mapping) and isinstance(b, Mapping):  # a map
        return [] if dict(a) == dict(b) else [(name, _shown(dict(a)), _shown(dict(b)))]
    if not (isinstance(a, Sequence) and isinstance(b, Sequence)):  # not a field's value: compared whole
        return [] if a == b else [(name, _shown(a), _shown(b))]
    if len(a) != len(b):
        return [(name, _shown(list(a)), _shown(list(b)))]
    found: list[tuple[str, str, str]] = []
    for index, (x, y) in enumerate(zip(a, b)):
        found += _value_differences(x, y, f"{name}[{index}]")
    return found


def _kind(value: object) -> str:
    return "nothing" if value is None else type(value).__name__


def _audience(audience: Audience, seat: int) -> str:
    return f"seat {seat}" if audience is Audience.SEAT else audience.name.lower()


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."
