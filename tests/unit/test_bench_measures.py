"""The bench's pure parts: /proc parsing, process trees, percentiles, rates, the plan, matchmaking pools."""

from __future__ import annotations

import math
import os

import pytest

from bench import cpu, plan
from bench.stats import Run, percentile, ratio, run_of


def stat_line(pid: int, comm: str, parent: int, utime: int, stime: int) -> str:
    """A /proc/<pid>/stat line with the fields bench.cpu reads in their real places."""
    after_comm = ["S", str(parent), *["0"] * 9, str(utime), str(stime), *["0"] * 37]
    return f"{pid} ({comm}) " + " ".join(after_comm) + "\n"


def test_stat_fields_are_counted_from_the_last_parenthesis_of_the_command_name() -> None:
    parsed = cpu.parse_stat(stat_line(4242, "python -m (odd) name)", 7, utime=130, stime=25))
    assert (parsed.pid, parsed.parent, parsed.ticks) == (4242, 7, 155)


def test_a_real_stat_line_of_this_process_parses() -> None:
    with open(f"/proc/{os.getpid()}/stat") as stat:
        parsed = cpu.parse_stat(stat.read())
    assert parsed.pid == os.getpid()
    assert parsed.parent == os.getppid()
    assert parsed.ticks >= 0


def test_descendants_are_found_through_every_generation_and_nothing_else() -> None:
    stats = {
        pid: cpu.Stat(pid, parent, 0)
        for pid, parent in [(1, 0), (10, 1), (11, 10), (12, 11), (20, 1), (21, 20)]
    }
    assert cpu.with_descendants([10], stats) == {10, 11, 12}
    assert cpu.with_descendants([10, 21, 99], stats) == {10, 11, 12, 21}
    # A subtree counted under a name of its own is left out of its ancestor's.
    assert cpu.with_descendants([1], stats, apart=[11]) == {1, 10, 20, 21}


def test_a_harness_that_launched_what_it_measures_counts_only_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    stats = {pid: cpu.Stat(pid, parent, ticks) for pid, parent, ticks in [(5, 1, 100), (6, 5, 300), (7, 6, 50)]}
    monkeypatch.setattr(cpu, "_stats", lambda: stats)
    found = cpu.cpu_seconds_by_name({"load": 5, "gateway": 6})
    assert set(found["load"]) == {5} and set(found["gateway"]) == {6, 7}


def test_cpu_used_counts_a_process_that_started_between_readings_from_zero() -> None:
    before = {1: 2.0, 2: 0.5}
    after = {1: 2.75, 2: 0.5, 3: 0.25}
    assert cpu.used_between(before, after) == pytest.approx(1.0)


def test_this_process_cpu_is_read() -> None:
    assert os.getpid() in cpu.cpu_seconds([os.getpid()])


@pytest.mark.parametrize(
    ("q", "expected"),
    [(0.5, 50.0), (0.99, 99.0), (1.0, 100.0), (0.001, 1.0)],
)
def test_percentile_is_the_nearest_rank(q: float, expected: float) -> None:
    samples = [float(n) for n in range(100, 0, -1)]  # unsorted on purpose
    assert percentile(samples, q) == expected


def test_percentile_of_few_samples_and_of_none() -> None:
    assert percentile([3.0], 0.99) == 3.0
    assert percentile([1.0, 2.0], 0.5) == 1.0
    assert percentile([], 0.5) == 0.0
    with pytest.raises(ValueError, match="q must be"):
        percentile([1.0], 0.0)


def test_a_run_reports_rates_cpu_per_action_and_percentiles_in_ms() -> None:
    run = run_of([0.001] * 98 + [0.05, 0.2], wall_seconds=4.0, cpu_seconds=0.5)
    assert run.count == 100
    assert run.per_second == 25.0
    assert run.cpu_ms_each == pytest.approx(5.0)
    assert run.p50_ms == pytest.approx(1.0)
    assert run.p99_ms == pytest.approx(50.0)
    assert Run(0, 1.0, 0.1, 0.0, 0.0).cpu_ms_each == math.inf
    assert math.isnan(ratio(1.0, 0.0))
    assert math.isnan(ratio(math.inf, 1.0))


def test_a_runs_cpu_is_the_sum_of_its_processes_and_each_is_reported_per_action() -> None:
    run = run_of([0.001] * 10, wall_seconds=1.0, cpu_by_process={"gateway": 0.02, "redis": 0.01, "edge": 0.0})
    assert run.cpu_seconds == pytest.approx(0.03)
    assert run.figures()["cpu_ms_by_process"] == pytest.approx({"gateway": 2.0, "redis": 1.0})


def test_each_named_process_is_read_with_its_own_descendants() -> None:
    found = cpu.cpu_seconds_by_name({"me": os.getpid(), "gone": 2**22 + 1})
    assert os.getpid() in found["me"]
    assert found["gone"] == {}


def test_the_games_are_the_minimal_one_then_the_registrys() -> None:
    from services.games import registry

    chosen = plan.plan({})
    assert chosen.games == (plan.MINIMAL, *[g for g in registry.available() if g != plan.MINIMAL])
    assert set(registry.GAMES) <= set(chosen.games)
    assert (chosen.levels, chosen.repeats) == ((1, 16, 64), 3)
    narrowed = plan.plan({"BENCH_GAMES": "dice_hand"})
    assert narrowed.games == ("dice_hand",)
    assert narrowed.every_game == chosen.games  # the targets still name every game
    quick = plan.plan({"BENCH_QUICK": "1"})
    assert quick.seconds < chosen.seconds and quick.repeats == chosen.repeats  # fewer seconds, same interleaving


def test_sittings_pool_into_one_run_and_sign_ins_stay_apart() -> None:
    from bench.matchmaking import Sitting, _pooled

    sittings = [
        Sitting(1000, 5.0, {"gateway": 2.0, "matchmaker": 0.2}, [0.1, 0.3], [0.05], 1076, 2.0, 1.0),
        Sitting(1000, 3.0, {"gateway": 1.0, "matchmaker": 0.1, "matchmaker-1": 0.1}, [0.2], [0.07], 1076, 1.0, 0.5),
    ]
    pooled = _pooled(2, sittings)
    assert pooled["tickets"] == 2000
    assert pooled["tickets_per_s"] == 250.0  # 2,000 tickets over 8 s, not the mean of 200 and 333
    assert pooled["tickets_per_s_by_sitting"] == [200.0, 333.3]
    assert pooled["cpu_ms_per_ticket_by_process"] == {"gateway": 1.5, "matchmaker": 0.15, "matchmaker-1": 0.05}
    assert pooled["matchmaker_cpu_ms_per_ticket_total"] == 0.2
    assert pooled["cpu_ms_per_ticket_all"] == 1.7
    assert pooled["p50_ms"] == 200.0 and pooled["unloaded_p50_ms"] == 60.0
    assert pooled["sign_ins_per_s"] == round(2152 / 3.0, 1)
    assert pooled["cpu_ms_per_sign_in_all"] == round(1500 / 2152, 3)


def test_matchmaking_targets_need_every_figure() -> None:
    from bench.report import matchmaking_targets

    def run(rate: float, cpu_ms: float) -> dict[str, float]:
        return {"tickets_per_s": rate, "matchmaker_cpu_ms_per_ticket_total": cpu_ms}

    found = {
        "tickets_in_gateway": {"one_replica": run(2100, 0.15), "two_replicas": run(2200, 0.2),
                               "throughput_ratio_2_to_1": 1.05},
        "tickets_via_matchmaker": {"one_replica": run(900, 0.9), "two_replicas": run(850, 1.0),
                                   "throughput_ratio_2_to_1": 0.94},
        "backlog": {"one_replica": run(3000, 0.1)},
    }
    met = {row["target"]: row["met"] for row in matchmaking_targets(found)}
    assert met == {
        "matchmaker's own CPU per ticket <= 0.2 ms": False,  # the replica serving the ticket streams spends 0.9
        "end to end >= 2,000 tickets/s": True,
        "two replicas not slower than one": False,
    }
