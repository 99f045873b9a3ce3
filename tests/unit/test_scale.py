"""The scale harness's arithmetic: efficiency, the idle check, caps (bench/scale*.py)."""

from __future__ import annotations

import pathlib

import pytest

from bench import scale, scale_floor
from bench.scale_cgroup import Idle, detect, held, idle_share, quota_lines
from bench.scale_load import Placed, Tickets, placement_problems


def test_efficiency_is_throughput_over_k_times_one_replica():
    assert scale.efficiency({1: 10.0, 2: 19.0, 4: 34.0}) == {1: 1.0, 2: 0.95, 4: 0.85}
    assert scale.efficiency({2: 5.0}) == {2: 0.0}  # no K=1: nothing to compare with


def test_idle_share_counts_idle_and_iowait_of_every_cpu_tick():
    before = Idle.parse("cpu  100 0 50 800 50 0 0 0 0 0")
    after = Idle.parse("cpu  400 0 100 900 50 0 0 0 0 0")
    assert idle_share(before, after) == 100 / 450


def test_a_run_under_fifteen_percent_idle_is_invalid():
    def measured(idle: float) -> scale.Measured:
        return scale.Measured("actions", 1, 100, 10.0, {"gateway-0": 0.5, "load": 9.0}, idle, True, True)

    assert measured(0.16).valid and not measured(0.14).valid
    # The load generator is not the stack: 0.5 s of gateway CPU over 100 actions.
    assert measured(0.5).stack_cpu_ms_per_op == 5.0


def test_caps_in_either_cgroup_version(tmp_path: pathlib.Path):
    assert quota_lines("v1", 0.05, 20_000) == {"cpu.cfs_period_us": "20000", "cpu.cfs_quota_us": "1000"}
    assert quota_lines("v2", 0.2, 100_000) == {"cpu.max": "20000 100000"}
    v1 = tmp_path / "cpu"
    v1.mkdir()
    (v1 / "cpu.cfs_quota_us").write_text("-1")
    assert detect(v1, tmp_path / "none")[0] == "v1"
    assert detect(tmp_path / "none", tmp_path / "none")[0] is None


def test_a_cap_held_when_the_process_used_no_more_than_it():
    assert held(cpu_seconds=0.5, wall=10.0, cores=0.05)
    assert not held(cpu_seconds=1.0, wall=10.0, cores=0.05)


def test_a_ticket_placed_twice_or_a_match_missing_a_seat_is_reported():
    good = [Placed(0, "a", "m1", 0, "hot", 0), Placed(0, "b", "m1", 1, "hot", 0)]
    assert placement_problems(Tickets(good)) == []
    twice = [*good, Placed(0, "a", "m2", 0, "hot", 0)]
    problems = placement_problems(Tickets(twice))
    assert any("placed twice" in p for p in problems) and any("m2" in p for p in problems)


def test_the_summary_marks_targets_and_the_baseline_ratio():
    runs = [scale.Measured(w, k, n * k, 10.0, {"match-0": 0.3 * k}, 0.5, True, True)
            for w in scale.WORKLOADS for k, n in ((1, 100), (4, 90))]
    baselines = {1: scale_floor.Baseline(1000, 1.0, 0.5), 4: scale_floor.Baseline(1000, 1.0, 0.5)}
    summary = scale.report(runs, baselines)
    assert summary["tickets_hot_pool"]["4"]["efficiency"] == 0.9
    assert summary["targets_met"]["efficiency_k4_0.85"] == dict.fromkeys(scale.WORKLOADS, True)
    # The worst of every ticket run: at K=4, 1.2 s over 360 tickets over 0.5 ms an operation.
    assert summary["ticket_cpu_x_baseline"] == 6.67
    assert summary["capped"] and summary["valid"]


def test_each_rate_is_the_median_of_its_runs_and_the_efficiency_is_taken_from_the_medians():
    rates = {1: (80, 120, 100), 4: (400, 360, 380)}
    runs = [scale.Measured(w, k, n, 1.0, {"match-0": 0.1}, 0.5, True, True)
            for w in scale.WORKLOADS for k, ns in rates.items() for n in ns]
    baselines = {1: scale_floor.Baseline(1000, 1.0, 0.5), 4: scale_floor.Baseline(1000, 1.0, 0.5)}
    summary = scale.report(runs, baselines)
    assert summary["actions"]["1"]["per_s"] == 100.0 and summary["actions"]["4"]["per_s"] == 380.0
    assert summary["actions"]["1"]["per_s_runs"] == [80.0, 120.0, 100.0]
    assert summary["actions"]["4"]["efficiency"] == 0.95
    assert scale.Settings.from_env({"SCALE_REPEATS": "5"}).repeats == 5
    assert scale.Settings.from_env({}).repeats == 3


def test_scale_workloads_narrows_the_run_and_the_summary_names_only_what_ran():
    assert scale.Settings.from_env({}).workloads == scale.WORKLOADS
    assert scale.Settings.from_env({"SCALE_WORKLOADS": "tickets_pools, actions"}).workloads == (
        "actions", "tickets_pools")
    with pytest.raises(SystemExit, match="no workload"):
        scale.Settings.from_env({"SCALE_WORKLOADS": "action"})
    runs = [scale.Measured("actions", k, n, 1.0, {"match-0": 0.1}, 0.5, True, True) for k, n in ((1, 10), (4, 36))]
    baselines = {1: scale_floor.Baseline(1000, 1.0, 0.5), 4: scale_floor.Baseline(1000, 1.0, 0.5)}
    summary = scale.report(runs, baselines)
    assert "tickets_pools" not in summary and summary["targets_met"]["efficiency_k4_0.85"] == {"actions": True}
