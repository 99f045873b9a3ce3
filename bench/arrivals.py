"""When an action's new state has reached every seat of its match.

An action's latency runs from the moment its seat sends it to the moment the
last of the match's seats holds a state past the version it was chosen at, as
boardgame.io's figure is read (bench/bgio/drive.js keeps the same book). Each
seat's stream is read in its own task, so the seats report what they saw in
any order: every message carries the time it arrived, and only a message that
arrived after the send counts for that send.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass
class _Pending:
    sent_at: float
    version: int  # the version the action was chosen at
    waiting: set[int]  # seats that have not yet shown a later one
    last_at: float = 0.0  # the latest arrival among the seats that have


@dataclass
class Arrivals:
    """The actions of one match still on their way to some seat, and the latencies of the rest."""

    seats: tuple[int, ...]
    latencies: list[float] = field(default_factory=list)  # seconds, one per action that reached every seat
    _pending: dict[str, _Pending] = field(default_factory=dict)

    @classmethod
    def of(cls, seats: Iterable[int]) -> Arrivals:
        return cls(tuple(seats))

    def sent(self, command_id: str, version: int, at: float) -> None:
        """A seat sent `command_id`, chosen at `version`, at time `at`."""
        self._pending[command_id] = _Pending(at, version, set(self.seats))

    def seen(self, seat: int, version: int, at: float) -> None:
        """`seat`'s stream showed the match at `version`, in a message that arrived at `at`."""
        for command_id, pending in list(self._pending.items()):
            if version <= pending.version or at < pending.sent_at or seat not in pending.waiting:
                continue
            pending.waiting.discard(seat)
            pending.last_at = max(pending.last_at, at)
            if not pending.waiting:
                self.latencies.append(pending.last_at - pending.sent_at)
                del self._pending[command_id]

    def refused(self, command_id: str) -> None:
        """`command_id` was refused: no new state will follow it."""
        self._pending.pop(command_id, None)

    def owes(self, seat: int) -> bool:
        """True while some action sent is still to reach `seat`."""
        return any(seat in pending.waiting for pending in self._pending.values())
