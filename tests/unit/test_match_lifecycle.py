"""The match domain: a position, a command, the events it causes or the rule that refuses it."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tabletop.common.v1 import chance_pb2, common_pb2
from tabletop.match.v1 import events_pb2 as ev
from tabletop.match.v1 import match_service_pb2 as mpb
from tabletop.match.v1 import record_pb2

from services.common.errors import FailedPrecondition, InvalidArgument, PermissionDenied, ServiceError
from services.match import lifecycle, records
from services.match.lifecycle import Holder, Match, Pile, Status, Turn


def fold(*events) -> Match:
    match = Match("m1")
    for version, event in enumerate(events, start=1):
        match = replace(lifecycle.evolve(match, event), version=version)
    return match


CREATED = ev.MatchCreated(game="pig", config={"target": "30"}, seat_count=2, seed_commitment="c0ffee")
ANA = ev.PlayerJoined(seat=0, player_id="p-ana", tenure=1, display_name="Ana")
BEN = ev.PlayerJoined(seat=1, player_id="p-ben", tenure=1, display_name="Ben")


def lobby() -> Match:
    return fold(CREATED)


def full() -> Match:
    return fold(CREATED, ANA, BEN)


def playing(to_move: tuple[int, ...] = (0,)) -> Match:
    started = lifecycle.evolve(full(), ev.MatchStarted())
    return lifecycle.with_position(started, b"state", Turn(seats=to_move), None)


def refused(call, rule: str) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        call()
    assert caught.value.reason == rule
    return caught.value


# ------------------------------------------------------------------ evolve


def test_a_created_match_waits_in_the_lobby_with_every_seat_free():
    match = lobby()
    assert (match.game, dict(match.config), match.seat_count) == ("pig", {"target": "30"}, 2)
    assert (match.players, match.tenures, match.names) == (("", ""), (0, 0), ("", ""))
    assert (match.status, match.seed_commitment, match.version) == (Status.LOBBY, "c0ffee", 1)


def test_evolve_returns_a_new_match_and_leaves_the_old_one_as_it_was():
    before = lobby()
    after = lifecycle.evolve(before, ANA)
    assert after.players == ("p-ana", "") and after.names == ("Ana", "")
    assert before.players == ("", "") and before.names == ("", "")


def test_a_seat_left_and_taken_again_counts_its_tenures():
    match = fold(CREATED, ANA, ev.PlayerLeft(seat=0, player_id="p-ana"))
    assert (match.players, match.tenures, match.names) == (("", ""), (1, 0), ("", ""))
    again = lifecycle.evolve(match, ev.PlayerJoined(seat=0, player_id="p-ana", tenure=2, display_name="A"))
    assert (again.players[0], again.tenure(0), again.name(0)) == ("p-ana", 2, "A")


def test_joins_logged_before_tenures_count_one_each():
    match = fold(CREATED, ev.PlayerJoined(seat=1, player_id="p-x"), ev.PlayerLeft(seat=1),
                 ev.PlayerJoined(seat=1, player_id="p-y"))
    assert match.tenures == (0, 2)


def test_chance_moves_the_draw_number_and_the_piles():
    shuffled = ev.ChanceResolved(
        counter=4,
        request=chance_pb2.ChanceRequest(shuffle_pile=chance_pb2.ShufflePile(pile="bag", cards=["a", "b", "c"])),
    )
    dealt = ev.ChanceResolved(
        counter=-1, request=chance_pb2.ChanceRequest(draw_cards=chance_pb2.DrawCards(pile="bag", count=2))
    )
    match = lifecycle.evolve(lifecycle.evolve(playing(), shuffled), dealt)
    assert match.next_counter == 5
    assert match.piles == (Pile("bag", 4, 3, 2),)
    put = ev.ChanceResolved(
        counter=5,
        request=chance_pb2.ChanceRequest(put_cards=chance_pb2.PutCards(pile="bag", cards=["a"])),
        outcome=chance_pb2.ChanceOutcome(cards_put=chance_pb2.CardsPut(pile="bag", size=2)),
    )
    assert lifecycle.evolve(match, put).piles == (Pile("bag", 5, 2, 0),)
    assert lifecycle.evolve(match, put).next_counter == 6


def test_an_ended_match_is_finished_with_its_outcome_and_a_revealed_seed_changes_nothing():
    outcome = common_pb2.Outcome(ranking=[2, 1], scores=[10, 30])
    ended = ev.MatchEnded(outcome=outcome)
    match = lifecycle.evolve(playing(), ended)
    assert match.status == Status.FINISHED and match.outcome == outcome
    ended.outcome.scores[0] = 99
    assert match.outcome.scores[0] == 10, "the match shares nothing with its event"
    assert lifecycle.evolve(match, ev.SeedRevealed(seed="s")) == match


# ------------------------------------------------------------------ decide


def test_join_takes_the_first_free_seat_or_the_one_asked_for():
    assert lifecycle.decide_join(lobby(), "p-ana", None, "Ana") == [ANA]
    assert lifecycle.decide_join(fold(CREATED, ANA), "p-ben", None, "Ben") == [BEN]
    assert lifecycle.decide_join(lobby(), "p-ben", 1, "Ben") == [BEN]


def test_a_seat_taken_again_gets_the_next_tenure():
    match = fold(CREATED, ANA, ev.PlayerLeft(seat=0, player_id="p-ana"))
    (joined,) = lifecycle.decide_join(match, "p-cy", 0, "Cy")
    assert joined.tenure == 2


@pytest.mark.parametrize(
    ("match", "seat", "rule"),
    [
        (fold(CREATED, ANA), 0, "match.seat_taken"),
        (full(), None, "match.full"),
        (lobby(), 2, "seat"),
        (playing(), None, "match.not_in_lobby"),
    ],
)
def test_a_join_is_refused(match, seat, rule):
    refused(lambda: lifecycle.decide_join(match, "p-cy", seat, "Cy"), rule)


def test_leave_frees_a_seat_of_its_holder_in_the_lobby_only():
    assert lifecycle.decide_leave(full(), 1, Holder("p-ben", 1)) == [ev.PlayerLeft(seat=1, player_id="p-ben")]
    assert isinstance(refused(lambda: lifecycle.decide_leave(full(), 1, Holder("p-ben", 2)), "auth.seat_changed"),
                      PermissionDenied)
    refused(lambda: lifecycle.decide_leave(fold(CREATED, ANA), 1, None), "match.seat_free")
    refused(lambda: lifecycle.decide_leave(playing(), 1, None), "match.leave_after_start")


def test_start_needs_every_seat_taken_and_a_seated_caller():
    assert lifecycle.decide_start(full(), None, None) == [ev.MatchStarted()]
    assert lifecycle.decide_start(full(), 0, Holder("p-ana", 1)) == [ev.MatchStarted()]
    assert isinstance(refused(lambda: lifecycle.decide_start(fold(CREATED, ANA), None, None), "match.seats_free"),
                      FailedPrecondition)
    refused(lambda: lifecycle.decide_start(fold(CREATED, ANA), 1, None), "match.seat_free")
    refused(lambda: lifecycle.decide_start(full(), 0, Holder("p-ben", 1)), "auth.seat_changed")
    refused(lambda: lifecycle.decide_start(playing(), None, None), "match.already_started")


def test_a_move_is_for_a_seat_asked_to_act_while_the_game_is_on():
    lifecycle.check_move(playing((0,)), 0, Holder("p-ana", 1))
    refused(lambda: lifecycle.check_move(playing((0,)), 1, None), "match.not_your_turn")
    refused(lambda: lifecycle.check_move(playing((0,)), 0, Holder("p-ana", 2)), "auth.seat_changed")
    refused(lambda: lifecycle.check_move(full(), 0, None), "match.not_active")


def test_replays_are_of_versions_the_log_has_reached():
    finished = replace(lifecycle.evolve(playing(), ev.MatchEnded()), version=9)
    lifecycle.check_replay(finished, 1)
    lifecycle.check_replay(finished, 9)
    assert isinstance(refused(lambda: lifecycle.check_replay(finished, 10), "at_version"), InvalidArgument)
    during = replace(playing(), version=5)
    lifecycle.check_replay(during, 5)  # during play too: each viewer sees what it could see then
    refused(lambda: lifecycle.check_replay(during, 6), "at_version")


def test_a_seats_view_is_its_holders_until_the_end_then_everyones():
    lifecycle.check_viewer(playing(), 0, Holder("p-ana", 1))
    refused(lambda: lifecycle.check_viewer(playing(), 0, Holder("p-ben", 1)), "auth.seat_changed")
    finished = lifecycle.evolve(playing(), ev.MatchEnded())
    lifecycle.check_viewer(finished, 0, Holder("p-ben", 1))  # the log is public once the match has ended


def test_a_scored_game_ends_once():
    scored = lifecycle.with_position(playing(), b"s", Turn(finished=True), common_pb2.Outcome(ranking=[1, 2]))
    assert lifecycle.ending(scored) == ev.MatchEnded(outcome=common_pb2.Outcome(ranking=[1, 2]))
    assert lifecycle.ending(lifecycle.evolve(scored, ev.MatchEnded(outcome=scored.outcome))) is None
    assert lifecycle.ending(playing()) is None


# ------------------------------------------------------------------ the record, at the edge


def test_a_match_survives_its_snapshot_form():
    chance = chance_pb2.ChanceRequest(roll_dice=chance_pb2.RollDice(faces=6, count=1))
    match = replace(
        lifecycle.with_position(playing(), b"\x00state", Turn(seats=(1,), chance=chance), None),
        piles=(Pile("bag", 3, 6, 1),), next_counter=4,
    )
    record = records.to_record(match)
    assert records.from_record(record_pb2.MatchRecord.FromString(record.SerializeToString())) == match
    assert records.from_record(records.to_record(lobby())) == lobby()


def test_a_snapshot_written_before_tenures_and_names_still_loads():
    old = record_pb2.MatchRecord(
        match_id="m1", version=3, game="pig", seat_count=2, players=["p-ana", ""], status=mpb.MATCH_STATUS_LOBBY
    )
    match = records.from_record(old)
    assert (match.tenures, match.names) == ((0, 0), ("", ""))
    assert lifecycle.evolve(match, BEN).tenures == (0, 1)


def test_the_summary_shows_seats_and_who_moves_while_the_game_is_on():
    summary = records.summary(replace(playing((1,)), version=5))
    seats = [(s.player_id, s.tenure, s.display_name) for s in summary.seats]
    assert seats == [("p-ana", 1, "Ana"), ("p-ben", 1, "Ben")]
    assert (summary.status, list(summary.to_move), summary.version) == (mpb.MATCH_STATUS_ACTIVE, [1], 5)
    assert list(records.summary(full()).to_move) == []


def test_statuses_are_numbered_as_the_contract():
    assert {s.name: int(s) for s in Status if s} == {
        name.removeprefix("MATCH_STATUS_"): n for name, n in mpb.MatchStatus.items() if n
    }


PILE_NAMES = st.sampled_from(["draw", "bag", "market"])
CHANCE_EVENTS = st.one_of(
    st.builds(
        lambda pile, size, counter: ev.ChanceResolved(
            counter=counter,
            request=chance_pb2.ChanceRequest(shuffle_pile=chance_pb2.ShufflePile(pile=pile, cards=["c"] * size)),
        ),
        PILE_NAMES, st.integers(0, 5), st.integers(0, 50),
    ),
    st.builds(
        lambda pile, count: ev.ChanceResolved(
            counter=-1, request=chance_pb2.ChanceRequest(draw_cards=chance_pb2.DrawCards(pile=pile, count=count))
        ),
        PILE_NAMES, st.integers(1, 3),
    ),
    st.builds(
        lambda pile, size, counter: ev.ChanceResolved(
            counter=counter,
            request=chance_pb2.ChanceRequest(put_cards=chance_pb2.PutCards(pile=pile, cards=["x"])),
            outcome=chance_pb2.ChanceOutcome(cards_put=chance_pb2.CardsPut(pile=pile, size=size)),
        ),
        PILE_NAMES, st.integers(1, 9), st.integers(0, 50),
    ),
    st.builds(
        lambda counter: ev.ChanceResolved(counter=counter, request=chance_pb2.ChanceRequest(roll_dice={})),
        st.integers(0, 50),
    ),
)


@given(st.lists(CHANCE_EVENTS, max_size=12), st.lists(CHANCE_EVENTS, max_size=4))
def test_a_run_of_chance_events_folds_as_one_event_at_a_time(run, before):
    """A rebuild folds a run of chance events in one pass: the same counters and piles,
    in the same order, as folding them one by one (the live path)."""
    start = Match("m")
    for event in before:
        start = lifecycle.chance_resolved(start, [event])
    one_by_one = start
    for event in run:
        one_by_one = lifecycle.chance_resolved(one_by_one, [event])
    assert lifecycle.chance_resolved(start, run) == one_by_one


# ------------------------------------------------------------------ an idle lobby expires

EXPIRED = ev.LobbyExpired(idle_seconds=3600)


def test_a_lobby_found_idle_expires_with_the_idle_time_it_waited():
    match = fold(CREATED, ANA)
    assert lifecycle.decide_expiry(match, match.version, 3600) == [EXPIRED]


def test_a_lobby_that_moved_since_it_was_found_idle_does_not_expire():
    found = fold(CREATED)
    moved_on = fold(CREATED, ANA)
    refused(lambda: lifecycle.decide_expiry(moved_on, found.version, 3600), "match.lobby_active")


@pytest.mark.parametrize("match", [playing(), fold(CREATED, ANA, BEN, ev.MatchStarted(), ev.MatchEnded())])
def test_only_a_lobby_expires(match):
    refused(lambda: lifecycle.decide_expiry(match, match.version, 3600), "match.not_in_lobby")


def test_an_expired_lobby_is_finished_without_a_ranking_and_says_why():
    closed = fold(CREATED, ANA, EXPIRED)
    assert closed.status == Status.FINISHED and closed.expired
    assert closed.outcome is not None and list(closed.outcome.ranking) == []
    assert dict(closed.outcome.detail) == {"reason": "lobby_expired", "idle_seconds": "3600"}
    assert not fold(CREATED, ANA, BEN, ev.MatchStarted(), ev.MatchEnded()).expired


def test_an_expired_lobby_refuses_every_seat_command_by_one_rule():
    closed = fold(CREATED, ANA, EXPIRED)
    refused(lambda: lifecycle.decide_join(closed, "p-ben", None, "Ben"), "match.lobby_expired")
    refused(lambda: lifecycle.decide_leave(closed, 0, None), "match.lobby_expired")
    refused(lambda: lifecycle.decide_start(closed, None, None), "match.lobby_expired")
    refused(lambda: lifecycle.decide_expiry(closed, closed.version, 3600), "match.lobby_expired")
    with pytest.raises(FailedPrecondition):
        lifecycle.check_move(closed, 0, None)


def test_an_expired_lobby_survives_its_snapshot_form():
    closed = fold(CREATED, ANA, EXPIRED)
    again = records.from_record(records.to_record(closed))
    assert again.expired and again.status == Status.FINISHED


def test_a_lobby_is_idle_its_idle_time_after_it_was_written():
    assert lifecycle.lobby_wake_ms(1_000, 2.5) == 3_500
