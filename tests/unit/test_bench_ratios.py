"""The bench's bookkeeping for issue 28: latency until every seat holds the new
state, the interleaved schedule, ratios taken within a repetition and their
medians, store calls per action, and the targets held to them."""

from __future__ import annotations

import math
from typing import Any

import pytest

from bench import plan
from bench.arrivals import Arrivals
from bench.plan import BGIO, FLOOR, MINIMAL, Step
from bench.redisstats import calls, per_action
from bench.stats import median_of_ratios
from bench.summary import evaluate, summarise

# --- latency until both seats hold the new state


def test_an_action_is_timed_until_the_later_of_the_two_seats_holds_a_later_state() -> None:
    book = Arrivals.of((0, 1))
    book.sent("s0-v5", version=5, at=1.0)
    book.seen(1, version=6, at=1.5)  # the other seat's stream, read first, got it last
    assert book.latencies == []
    book.seen(0, version=6, at=1.2)  # the mover's own `accepted`
    assert book.latencies == [pytest.approx(0.5)]
    assert not book.owes(0) and not book.owes(1)


def test_only_a_state_past_the_version_acted_on_counts() -> None:
    book = Arrivals.of((0, 1))
    book.sent("s0-v5", version=5, at=1.0)
    book.seen(0, version=6, at=1.1)
    book.seen(1, version=5, at=1.2)  # still the state the move was chosen at
    assert book.latencies == [] and book.owes(1) and not book.owes(0)
    book.seen(1, version=7, at=1.4)  # a later state holds it too, even one past it
    assert book.latencies == [pytest.approx(0.4)]


def test_a_message_that_arrived_before_the_send_does_not_count_for_it() -> None:
    book = Arrivals.of((0, 1))
    book.sent("s0-v5", version=5, at=1.0)
    book.seen(1, version=6, at=0.9)  # read after the send, but it was on the wire before
    book.seen(0, version=6, at=1.1)
    assert book.latencies == [] and book.owes(1)


def test_one_state_answers_every_action_it_is_past() -> None:
    book = Arrivals.of((0, 1))
    book.sent("s0-v5", version=5, at=1.0)
    book.seen(0, version=6, at=1.5)
    book.sent("s0-v6", version=6, at=2.0)  # the mover acted again from its own answer
    book.seen(0, version=7, at=2.5)
    book.seen(1, version=7, at=3.0)  # the other seat's first update holds both
    assert sorted(book.latencies) == [pytest.approx(1.0), pytest.approx(2.0)]


def test_a_refused_action_is_owed_to_nobody_and_timed_never() -> None:
    book = Arrivals.of((0, 1))
    book.sent("s0-v5", version=5, at=1.0)
    assert book.owes(0) and book.owes(1)
    book.refused("s0-v5")
    book.seen(0, version=6, at=1.5)
    book.seen(1, version=6, at=1.6)
    assert book.latencies == [] and not book.owes(1)


def test_a_seat_that_never_shows_the_state_leaves_the_action_untimed() -> None:
    book = Arrivals.of((0, 1, 2))
    book.sent("s2-v1", version=1, at=0.0)
    book.seen(0, version=2, at=0.1)
    book.seen(2, version=2, at=0.2)
    assert book.latencies == [] and book.owes(1) and not book.owes(2)


# --- the interleaved schedule


def test_each_repetition_runs_every_level_back_to_back_and_every_other_runs_backwards() -> None:
    chosen = plan.plan({"BENCH_LEVELS": "1,16", "BENCH_GAMES": f"{MINIMAL},el_dorado", "BENCH_REPEATS": "3"})
    steps = plan.schedule(chosen)
    one_level = [(FLOOR, MINIMAL), (BGIO, MINIMAL), ("inprocess", MINIMAL), ("inprocess", "el_dorado"),
                 ("services", MINIMAL), ("services", "el_dorado")]
    first = [Step(0, n, side, game) for n in (1, 16) for side, game in one_level]
    assert [s for s in steps if s.repeat == 0] == first
    assert [s for s in steps if s.repeat == 1] == [Step(1, s.matches, s.side, s.game) for s in reversed(first)]
    assert [s for s in steps if s.repeat == 2] == [Step(2, s.matches, s.side, s.game) for s in first]
    assert [s.repeat for s in steps] == sorted(s.repeat for s in steps)  # one repetition after another
    assert BGIO not in {s.side for s in plan.schedule(chosen, with_bgio=False)}


# --- ratios within a repetition, medians over them


def run(repeat: int, side: str, game: str, matches: int, cpu: float, p99: float = 10.0,
        **extra: Any) -> dict[str, Any]:
    return {"repeat": repeat, "side": side, "game": game, "matches": matches, "cpu_ms_each": cpu,
            "per_second": 100.0, "p50_ms": 1.0, "p99_ms": p99, "failed": 0, **extra}


def rows_by_key(runs: list[dict[str, Any]]) -> dict[tuple[str, str, int], dict[str, Any]]:
    return {(row["side"], row["game"], row["matches"]): row for row in summarise(runs)}


def test_the_ratio_to_boardgameio_is_taken_within_each_repetition_then_its_median() -> None:
    bgio, ours = (0.2, 0.4, 0.25), (1.0, 1.6, 1.5)
    runs = [run(r, BGIO, MINIMAL, 16, cpu) for r, cpu in enumerate(bgio)]
    runs += [run(r, "inprocess", MINIMAL, 16, cpu) for r, cpu in enumerate(ours)]
    row = rows_by_key(runs)[("inprocess", MINIMAL, 16)]
    assert row["cpu_ms_each"] == 1.5 and row["repeats"] == 3
    assert row["vs_bgio_by_repeat"]["cpu_ms_each"] == pytest.approx([5.0, 4.0, 6.0])
    assert row["vs_bgio"]["cpu_ms_each"] == pytest.approx(5.0)  # not 1.5 / 0.25 = 6, the ratio of the medians


def test_a_real_game_is_held_to_dice_hand_of_its_shape_and_level_and_everything_to_the_floor() -> None:
    runs = [run(0, FLOOR, MINIMAL, 64, 0.2), run(0, "inprocess", MINIMAL, 64, 1.0),
            run(0, "inprocess", "la_isla", 64, 1.8), run(0, "services", MINIMAL, 64, 3.0),
            run(0, "inprocess", MINIMAL, 16, 9.0)]
    rows = rows_by_key(runs)
    assert rows[("inprocess", "la_isla", 64)]["vs_minimal"]["cpu_ms_each"] == pytest.approx(1.8)
    assert rows[("inprocess", "la_isla", 64)]["vs_floor"]["cpu_ms_each"] == pytest.approx(9.0)
    assert rows[("services", MINIMAL, 64)]["vs_floor"]["cpu_ms_each"] == pytest.approx(15.0)
    assert "vs_minimal" not in rows[("inprocess", MINIMAL, 64)]
    assert math.isnan(rows[("inprocess", MINIMAL, 64)]["vs_bgio"]["cpu_ms_each"])  # no boardgame.io run


def test_a_repetition_without_the_run_beside_it_is_left_out_of_the_median() -> None:
    assert median_of_ratios([(2.0, 1.0), (9.0, math.nan), (4.0, 1.0), (3.0, 0.0)]) == 3.0
    assert math.isnan(median_of_ratios([]))


def test_the_split_and_the_store_calls_are_medians_name_by_name() -> None:
    runs = [
        run(0, "services", MINIMAL, 1, 3.0, cpu_ms_by_process={"dice": 0.3, "match": 1.0},
            redis_per_action={"xadd": 1.0, "exists": 2.0}),
        run(1, "services", MINIMAL, 1, 3.0, cpu_ms_by_process={"match": 1.2}, redis_per_action={"xadd": 1.0}),
        run(2, "services", MINIMAL, 1, 3.0, cpu_ms_by_process={"dice": 0.5, "match": 0.8},
            redis_per_action={"xadd": 1.0, "exists": 2.0}),
    ]
    row = rows_by_key(runs)[("services", MINIMAL, 1)]
    assert row["cpu_ms_by_process"] == pytest.approx({"dice": 0.3, "match": 1.0})  # absent counts as 0
    assert row["redis_per_action"] == {"exists": 2.0, "xadd": 1.0}


# --- store calls per action


def test_store_calls_per_action_leave_out_the_readings_own_info() -> None:
    before = calls({"cmdstat_xadd": {"calls": 10, "usec": 5}, "cmdstat_info": {"calls": 3}, "used_memory": 1})
    after = calls({"cmdstat_xadd": {"calls": 30}, "cmdstat_EXISTS": {"calls": 40}, "cmdstat_info": {"calls": 4},
                   "cmdstat_get": {"calls": 7}})
    assert before == {"xadd": 10, "info": 3}
    assert per_action(before, after, actions=20) == {"exists": 2.0, "get": 0.35, "xadd": 1.0}
    assert per_action(before, after, actions=0) == {}


# --- the targets


def test_the_targets_are_issue_28s() -> None:
    found = {(t.shape, t.game, t.matches, t.against, t.metric): t.limit for t in plan.targets((MINIMAL, "el_dorado"))}
    assert found == {
        ("inprocess", MINIMAL, 16, "vs_bgio", "cpu_ms_each"): 3.5,
        ("inprocess", MINIMAL, 64, "vs_bgio", "cpu_ms_each"): 3.5,
        ("services", MINIMAL, 16, "vs_bgio", "cpu_ms_each"): 8.0,
        ("services", MINIMAL, 64, "vs_bgio", "cpu_ms_each"): 6.0,
        ("inprocess", MINIMAL, 64, "vs_bgio", "p99_ms"): 2.0,
        ("inprocess", "el_dorado", 16, "vs_minimal", "cpu_ms_each"): 1.5,
        ("inprocess", "el_dorado", 64, "vs_minimal", "cpu_ms_each"): 1.5,
    }


def sixty_four(bgio_cpu: float = 0.25) -> list[dict[str, Any]]:
    return [run(0, BGIO, MINIMAL, 64, bgio_cpu, p99=50.0), run(0, "inprocess", MINIMAL, 64, 0.875, p99=101.0),
            run(0, "services", MINIMAL, 64, 1.6), run(0, "inprocess", "el_dorado", 64, 1.3)]


def verdict(verdicts: list[dict[str, Any]], starts: str) -> dict[str, Any]:
    (found,) = [row for row in verdicts if row["target"].startswith(starts)]
    return found


def test_a_target_is_met_at_its_limit_and_not_past_it() -> None:
    verdicts = evaluate(plan.targets((MINIMAL, "el_dorado")), summarise(sixty_four()))
    assert verdict(verdicts, "in process, dice_hand, 64 matches: CPU")["status"] == "met"  # 3.5x exactly
    p99 = verdict(verdicts, "in process, dice_hand, 64 matches: p99")
    assert (p99["status"], p99["figure"]) == ("not met", pytest.approx(2.02))
    assert verdict(verdicts, "services, dice_hand, 64 matches: CPU")["status"] == "not met"  # 6.4x
    el_dorado = verdict(verdicts, "in process, el_dorado, 64 matches: CPU")
    assert el_dorado["status"] == "met" and el_dorado["by_repeat"] == [pytest.approx(1.3 / 0.875)]  # 1.49x
    unmeasured = [row for row in verdicts if "16 matches" in row["target"]]
    assert unmeasured and all(row["status"] == "not measured" and not row["met"] for row in unmeasured)
    assert all("not in this run" in row["why"] for row in unmeasured)


def test_without_boardgameio_its_ratio_targets_say_so_and_the_others_still_count() -> None:
    runs = [row for row in sixty_four() if row["side"] != BGIO]
    why = "node and npm not found: the boardgame.io side-by-side is skipped"
    verdicts = evaluate(plan.targets((MINIMAL, "el_dorado")), summarise(runs), bgio_missing=why)
    against_bgio = [row for row in verdicts if "boardgame.io" in row["target"]]
    assert against_bgio and all(row["status"] == "not measured" and row["why"] == why for row in against_bgio)
    assert all(row["figure"] is None and not row["met"] for row in against_bgio)
    assert verdict(verdicts, "in process, el_dorado, 64 matches: CPU")["status"] == "met"
