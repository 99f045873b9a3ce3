"""The capacity model's arithmetic (deploy/capacity.py): cores, replicas and memory per tier."""

from __future__ import annotations

import json

import pytest

from deploy import capacity
from deploy.capacity import Load, Sizing, TierFigures

MiB = 2**20


def test_cores_are_cpu_per_operation_times_the_rates() -> None:
    figures = TierFigures(cpu_ms_per_action=3.0, cpu_ms_per_ticket=5.0)
    load = Load(matches=1000, actions_per_match_per_s=0.2, tickets_per_s=10)
    # 200 actions/s * 3 ms + 10 tickets/s * 5 ms = 650 ms of CPU a second.
    assert capacity.cores_needed(figures, load) == pytest.approx(0.65)


def test_replicas_carry_the_cores_at_the_target_utilisation() -> None:
    sizing = Sizing(replica_cores=0.5, utilisation=0.7)
    assert capacity.replicas_needed(1.4, sizing) == 4  # 1.4 / 0.35 is exactly 4: no fifth for a rounding error
    assert capacity.replicas_needed(1.41, sizing) == 5
    assert capacity.replicas_needed(0.01, sizing) == 2  # never below the floor
    assert capacity.replicas_needed(0.01, Sizing(min_replicas=1)) == 1


def test_memory_is_the_idle_size_plus_a_share_of_matches_and_streams_with_headroom() -> None:
    figures = TierFigures(0.0, 0.0, bytes_per_match=4 * 1024, bytes_per_stream=48 * 1024, idle_bytes=80 * MiB)
    load = Load(matches=2048, actions_per_match_per_s=0.2, tickets_per_s=0, streams_per_match=2)
    # Over 2 replicas: 1024 matches (4 MiB) and 2048 streams (96 MiB) each, plus 80 MiB idle.
    assert capacity.resident_bytes(figures, load, 2) == 180 * MiB
    # Twice that, in 64 MiB steps: 360 MiB -> 384 MiB.
    assert capacity.memory_request(figures, load, 2, Sizing(memory_headroom=2.0)) == 384 * MiB


def test_a_bounded_cache_caps_the_matches_a_replica_holds() -> None:
    figures = TierFigures(0.0, 0.0, bytes_per_match=1000, idle_bytes=0, matches_held=100)
    load = Load(matches=10_000, actions_per_match_per_s=0.1, tickets_per_s=0)
    assert capacity.resident_bytes(figures, load, 4) == 100 * 1000


def test_need_puts_it_together() -> None:
    figures = TierFigures(3.1, 4.2, bytes_per_match=7000, bytes_per_stream=52_000, idle_bytes=80 * MiB)
    found = capacity.need("gateway", figures, Load(2000, 0.2, 20), Sizing(replica_cores=0.5))
    assert found.cores == pytest.approx(1.324)
    assert found.replicas == 4  # 1.324 / 0.35 = 3.8
    # 80 MiB + (2000 * 7 kB + 4000 * 52 kB) / 4 = 80 MiB + 55.5 MB, twice: 272.9 MiB -> 320 MiB.
    assert found.memory_bytes == 320 * MiB


def test_a_share_of_the_load_splits_matches_and_tickets() -> None:
    third = Load(2000, 0.2, 30).share(1 / 3)
    assert third.matches == 667 and third.tickets_per_s == pytest.approx(10)
    assert third.actions_per_match_per_s == 0.2


def test_quantities_round_up() -> None:
    assert capacity.millicores(0.777) == "800m"
    assert capacity.millicores(0.5) == "500m"
    assert capacity.mebibytes(192 * MiB) == "192Mi"
    assert capacity.mebibytes(192 * MiB + 1) == "193Mi"


SCALE_SUMMARY = {
    "actions": {"1": {"cpu_ms_per_op_by_tier": {"gateway": 3.1, "match": 3.2, "load": 9.0}}},
    "tickets_hot_pool": {"1": {"cpu_ms_per_op_by_tier": {"gateway": 4.2, "matchmaker": 7.0, "load": 2.0}}},
}


def test_cpu_figures_come_from_the_last_json_line_of_a_scale_run() -> None:
    text = "[scale] K=1 ...\n" + json.dumps(SCALE_SUMMARY) + "\n"
    found = capacity.cpu_from_scale(capacity.last_json(text))
    # The load generator is no tier; a tier absent from a workload costs it nothing.
    assert found == {"gateway": (3.1, 4.2), "match": (3.2, 0.0), "matchmaker": (0.0, 7.0)}
    with pytest.raises(ValueError):
        capacity.last_json("no summary here")


def test_measured_figures_replace_only_what_they_measure() -> None:
    recorded = {"gateway": TierFigures(1.0, 1.0, bytes_per_match=5, idle_bytes=7)}
    merged = capacity.with_cpu(recorded, {"gateway": (3.1, 4.2), "dice": (0.3, 1.8)})
    assert merged["gateway"] == TierFigures(3.1, 4.2, bytes_per_match=5, idle_bytes=7)
    assert merged["dice"] == TierFigures(0.3, 1.8)
    memory = {"bytes_per_match": {"gateway": 6959}, "bytes_per_stream": {"gateway": -43}, "rss_idle": {"gateway": 9}}
    # A negative difference is noise, not memory given back per stream.
    memory["bytes_per_match"]["edge"] = 0  # measured, but no CPU figure: left out rather than shown as free
    assert capacity.with_memory(merged, memory) == {**merged, "gateway": TierFigures(3.1, 4.2, 6959, 0, 9)}
