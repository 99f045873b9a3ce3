"""Grouping tickets into tables: who plays with whom, and when."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from services.matchmaker.config import MatchmakerConfig
from services.matchmaker.pool import Group, Ticket, form_groups, spread

CONFIG = MatchmakerConfig(spread_base=3.0, spread_per_second=0.5, spread_unbounded_after=30.0)
NOW = 1000.0


def ticket(n: int, low: int = 2, high: int = 0, rating: float = 25.0, waited: float = 0.0,
           player: str = "") -> Ticket:
    return Ticket(f"t{n}", player or f"p{n}", low, high or low, rating, NOW - waited)


def tables(tickets: list[Ticket], config: MatchmakerConfig = CONFIG) -> list[list[str]]:
    return [[t.ticket_id for t in g.tickets] for g in form_groups(tickets, NOW, config)]


def test_two_tickets_for_two_make_a_table() -> None:
    assert tables([ticket(1), ticket(2)]) == [["t1", "t2"]]


def test_a_lone_ticket_waits() -> None:
    assert tables([ticket(1)]) == []


def test_the_oldest_ticket_gets_the_largest_table_its_range_allows() -> None:
    waiting = [ticket(1, 2, 4, waited=5), ticket(2, 2, 4), ticket(3, 2, 4), ticket(4, 3, 4)]
    assert tables(waiting) == [["t1", "t2", "t3", "t4"]]


def test_a_ticket_is_never_seated_at_a_table_outside_its_range() -> None:
    # t3 wants exactly 3: the two-seat table of t1 and t2 leaves it waiting.
    assert tables([ticket(1, waited=2), ticket(2), ticket(3, 3)]) == [["t1", "t2"]]


def test_far_ratings_wait_until_the_spread_has_widened() -> None:
    fresh = [ticket(1, rating=20.0), ticket(2, rating=30.0)]
    assert tables(fresh) == []
    # 10 apart needs 3 + 0.5 * waited >= 10 for both: 14 s.
    assert tables([ticket(1, rating=20.0, waited=14), ticket(2, rating=30.0, waited=14)]) == [["t1", "t2"]]
    assert tables([ticket(1, rating=20.0, waited=14), ticket(2, rating=30.0, waited=1)]) == []


def test_nobody_waits_forever_for_a_close_rating() -> None:
    apart = [ticket(1, rating=0.0, waited=31), ticket(2, rating=50.0, waited=31)]
    assert tables(apart) == [["t1", "t2"]]
    assert spread(CONFIG, 29.9) < spread(CONFIG, 30.0) == float("inf")


def test_the_closest_ratings_are_seated_together() -> None:
    waiting = [ticket(1, rating=25.0, waited=3), ticket(2, rating=27.0), ticket(3, rating=25.5)]
    assert tables(waiting) == [["t1", "t3"]]


def test_one_player_never_takes_two_seats_of_a_table() -> None:
    assert tables([ticket(1, player="ann"), ticket(2, player="ann")]) == []


def test_options_do_not_matter_here_pools_separate_them() -> None:
    assert len(tables([ticket(i) for i in range(10)])) == 5


def test_a_ticket_waiting_past_the_backfill_delay_gets_bots() -> None:
    config = MatchmakerConfig(bot_backfill_after=10.0)
    groups = form_groups([ticket(1, 3, 4, waited=11), ticket(2, 2, 3)], NOW, config)
    assert [(len(g.tickets), g.bots) for g in groups] == [(2, 1)]
    assert form_groups([ticket(1, 3, 4, waited=9)], NOW, config) == []


def test_no_bots_when_backfill_is_off() -> None:
    assert form_groups([ticket(1, waited=3600)], NOW, MatchmakerConfig(bot_backfill_after=0.0)) == []


tickets_st = st.lists(
    st.tuples(st.integers(1, 4), st.integers(0, 2), st.floats(0, 50), st.floats(0, 40), st.integers(0, 5)),
    max_size=40,
)


@given(tickets_st)
def test_groups_are_disjoint_fit_every_range_and_every_pair_accepts(
    raw: list[tuple[int, int, float, float, int]],
) -> None:
    waiting = [ticket(i, low, low + extra, rating, waited, f"p{player}_{i % 7}")
               for i, (low, extra, rating, waited, player) in enumerate(raw)]
    by_id = {t.ticket_id: t for t in waiting}
    seen: set[str] = set()
    for group in form_groups(waiting, NOW, CONFIG):
        ids = [t.ticket_id for t in group.tickets]
        assert not seen & set(ids)
        seen |= set(ids)
        assert group.bots == 0
        for t in group.tickets:
            assert by_id[t.ticket_id].players_min <= group.size <= by_id[t.ticket_id].players_max
        for a, b in itertools.combinations(group.tickets, 2):
            assert a.player_id != b.player_id
            limit = min(spread(CONFIG, NOW - a.queued_at), spread(CONFIG, NOW - b.queued_at))
            assert abs(a.rating - b.rating) <= limit


def _every_pair_groups(tickets: list[Ticket], now: float, config: MatchmakerConfig) -> list[Group]:
    """The grouping as first written, every ticket compared with every other: the oracle
    that the rating-ordered search must agree with, group for group."""
    waiting = sorted(tickets, key=lambda t: (t.queued_at, t.ticket_id))
    accepts = {t.ticket_id: spread(config, now - t.queued_at) for t in waiting}

    def fits(a: Ticket, b: Ticket) -> bool:
        limit = min(accepts[a.ticket_id], accepts[b.ticket_id])
        return a.player_id != b.player_id and abs(a.rating - b.rating) <= limit

    def mates(anchor: Ticket, free: list[Ticket], size: int) -> list[Ticket]:
        fitting = [t for t in free if t.ticket_id != anchor.ticket_id and t.players_min <= size <= t.players_max
                   and fits(anchor, t)]
        fitting.sort(key=lambda t: (abs(t.rating - anchor.rating), t.queued_at, t.ticket_id))
        chosen: list[Ticket] = []
        for candidate in fitting:
            if len(chosen) == size - 1:
                break
            if all(fits(candidate, other) for other in chosen):
                chosen.append(candidate)
        return chosen

    used: set[str] = set()
    groups: list[Group] = []
    for anchor in waiting:
        if anchor.ticket_id in used:
            continue
        free = [t for t in waiting if t.ticket_id not in used]
        group = None
        for size in range(anchor.players_max, anchor.players_min - 1, -1):
            found = mates(anchor, free, size)
            if len(found) == size - 1:
                group = Group((anchor, *found))
                break
        if group is None and config.bot_backfill_after > 0 and now - anchor.queued_at >= config.bot_backfill_after:
            found = mates(anchor, free, anchor.players_min)
            group = Group((anchor, *found), bots=anchor.players_min - 1 - len(found))
        if group is not None:
            groups.append(group)
            used.update(t.ticket_id for t in group.tickets)
    return groups


@given(
    st.lists(
        st.tuples(
            st.integers(1, 3),
            st.integers(0, 2),
            st.sampled_from([20.0, 22.5, 25.0, 25.0, 27.5, 31.0, 40.0, float("nan")]),
            st.sampled_from([0.0, 0.0, 4.0, 9.0, 40.0]), st.integers(0, 5),
        ),
        max_size=30,
    ),
    st.sampled_from([0.0, 8.0]),
)
def test_the_rating_ordered_search_forms_the_groups_every_pair_comparison_forms(
    raw: list[tuple[int, int, float, float, int]], backfill: float
) -> None:
    """Ratings repeat on purpose: ties in rating distance are broken by age, then id, alike; a rating
    that is not a number fits nobody, and hides nobody."""
    config = MatchmakerConfig(spread_base=3.0, spread_per_second=0.5, spread_unbounded_after=30.0,
                              bot_backfill_after=backfill)
    waiting = [ticket(i, low, low + extra, rating, waited, f"p{player}")
               for i, (low, extra, rating, waited, player) in enumerate(raw)]
    assert form_groups(waiting, NOW, config) == _every_pair_groups(waiting, NOW, config)
