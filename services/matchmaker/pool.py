"""Grouping waiting tickets into tables: pure, no I/O.

One pool holds the tickets of one game with equal options. A grouping pass
serves the oldest ticket first: it gets the largest table its range allows
for which enough compatible tickets wait. Two tickets are compatible when
their ratings differ by no more than what both accept; what a ticket accepts
widens the longer it waits and becomes unbounded after
`spread_unbounded_after`, so nobody waits forever for want of a close rating.
A ticket that has waited `bot_backfill_after` (when set) gets the smallest
table of its range, the free seats filled by bots.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from services.matchmaker.config import MatchmakerConfig


@dataclass(frozen=True)
class Ticket:
    """A waiting ticket as the grouping sees it."""

    ticket_id: str
    player_id: str
    players_min: int
    players_max: int
    # The player's rating mean (openskill mu) in this game when the ticket was made.
    rating: float
    # Seconds since the epoch.
    queued_at: float


@dataclass(frozen=True)
class Group:
    """A table to form: the tickets in seat order, then `bots` bot seats."""

    tickets: tuple[Ticket, ...]
    bots: int = 0

    @property
    def size(self) -> int:
        return len(self.tickets) + self.bots


def spread(config: MatchmakerConfig, waited: float) -> float:
    """The rating difference a ticket accepts after waiting `waited` seconds."""
    if waited >= config.spread_unbounded_after:
        return math.inf
    return config.spread_base + config.spread_per_second * max(0.0, waited)


def form_groups(tickets: Sequence[Ticket], now: float, config: MatchmakerConfig) -> list[Group]:
    """Disjoint groups from `tickets`, the oldest tickets served first."""
    waiting = sorted(tickets, key=lambda t: (t.queued_at, t.ticket_id))
    accepts = {t.ticket_id: spread(config, now - t.queued_at) for t in waiting}
    lane = _Lane(waiting)
    groups: list[Group] = []
    for anchor in waiting:
        if anchor.ticket_id in lane.used:
            continue
        group = _table_for(anchor, lane, accepts)
        backfill = config.bot_backfill_after
        if group is None and backfill > 0 and now - anchor.queued_at >= backfill:
            group = _backfilled(anchor, lane, accepts)
        if group is not None:
            groups.append(group)
            lane.used.update(t.ticket_id for t in group.tickets)
    return groups


class _Lane:
    """The waiting tickets by rating, and those already seated: an anchor looks for mates
    outward from its own rating and stops where the ratings differ by more than it accepts,
    so a pass over a deep pool does not compare every ticket with every other."""

    def __init__(self, waiting: Sequence[Ticket]) -> None:
        # A rating that is not a number fits nobody (every comparison with it is false): left out,
        # it cannot stall the walk or hide the tickets beyond it.
        rated = [t for t in waiting if not math.isnan(t.rating)]
        self.by_rating = sorted(rated, key=lambda t: (t.rating, t.queued_at, t.ticket_id))
        self.place = {t.ticket_id: i for i, t in enumerate(self.by_rating)}
        self.used: set[str] = set()

    def nearest(self, anchor: Ticket, reach: float) -> Iterator[Ticket]:
        """Free tickets other than `anchor` within `reach` of its rating, nearest first
        (equally near: the older first, then by id)."""
        line, used, rating = self.by_rating, self.used, anchor.rating
        if anchor.ticket_id not in self.place:
            return
        left, right = self.place[anchor.ticket_id] - 1, self.place[anchor.ticket_id] + 1
        while True:
            gap = min(
                rating - line[left].rating if left >= 0 else math.inf,
                line[right].rating - rating if right < len(line) else math.inf,
            )
            if gap > reach or gap == math.inf:
                return
            tied: list[Ticket] = []
            while left >= 0 and rating - line[left].rating == gap:
                tied.append(line[left])
                left -= 1
            while right < len(line) and line[right].rating - rating == gap:
                tied.append(line[right])
                right += 1
            tied.sort(key=lambda t: (t.queued_at, t.ticket_id))
            yield from (t for t in tied if t.ticket_id not in used)


def _compatible(a: Ticket, b: Ticket, accepts: dict[str, float]) -> bool:
    return a.player_id != b.player_id and abs(a.rating - b.rating) <= min(accepts[a.ticket_id], accepts[b.ticket_id])


def _mates(anchor: Ticket, lane: _Lane, accepts: dict[str, float], size: int) -> list[Ticket]:
    """Up to size-1 tickets that fit a table of `size` with `anchor` and with each other,
    the nearest ratings first."""
    chosen: list[Ticket] = []
    for candidate in lane.nearest(anchor, accepts[anchor.ticket_id]):
        if len(chosen) == size - 1:
            break
        if not candidate.players_min <= size <= candidate.players_max or not _compatible(anchor, candidate, accepts):
            continue
        if all(_compatible(candidate, other, accepts) for other in chosen):
            chosen.append(candidate)
    return chosen


def _table_for(anchor: Ticket, lane: _Lane, accepts: dict[str, float]) -> Group | None:
    for size in range(anchor.players_max, anchor.players_min - 1, -1):
        mates = _mates(anchor, lane, accepts, size)
        if len(mates) == size - 1:
            return Group((anchor, *mates))
    return None


def stragglers(tickets: Sequence[Ticket], groups: Sequence[Group], now: float, after: float) -> list[Ticket]:
    """The tickets of a sub-pool's pass that no group seats and that have waited `after`
    seconds or more: they go to sub-pool 0, where those of every sub-pool meet, so a ticket
    whose mates all landed in other sub-pools is not left alone in its own."""
    seated = {t.ticket_id for group in groups for t in group.tickets}
    return [t for t in tickets if t.ticket_id not in seated and now - t.queued_at >= after]


def _backfilled(anchor: Ticket, lane: _Lane, accepts: dict[str, float]) -> Group:
    size = anchor.players_min
    mates = _mates(anchor, lane, accepts, size)
    return Group((anchor, *mates), bots=size - 1 - len(mates))
