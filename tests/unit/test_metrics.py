"""Metrics in the gRPC ecosystem's names and labels, each process exposing its own families
(services/common/metrics.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import urllib.request

from prometheus_client import generate_latest

from services.common import metrics
from services.common.config import Settings
from services.common.errors import FailedPrecondition
from services.common.rpc.adapters import DiceClient
from services.common.security import authz
from tests.unit import test_batch


def _families(name: str, settings: Settings | None = None) -> set[str]:
    text = generate_latest(metrics.registry_of(metrics.roles(name, settings or Settings()))).decode()
    return {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE")}


def _sample(name: str, **labels: str) -> float:
    registry = metrics.registry_of(metrics.roles("match", Settings()))
    return registry.get_sample_value(name, labels) or 0.0


def test_each_process_exposes_its_own_families_only() -> None:
    grpc_server = {"grpc_server_started_total", "grpc_server_handled_total", "grpc_server_handling_seconds"}
    grpc_client = {name.replace("server", "client") for name in grpc_server}
    dice, match, rules = _families("dice"), _families("match"), _families("rules-pig")
    assert grpc_server <= dice and not grpc_client & dice  # the dice call nobody
    assert "tabletop_actions_total" not in dice and "tabletop_rules_chance_left_total" not in dice
    assert "process_cpu_seconds_total" in dice  # the process's own collectors, everywhere
    assert grpc_server | grpc_client | {"tabletop_actions_total", "tabletop_appends_total"} <= match
    assert "tabletop_rules_chance_left_total" not in match
    assert "tabletop_rules_chance_left_total" in rules and "tabletop_actions_total" not in rules
    assert "tabletop_actions_total" not in _families("gateway")
    # The gateway that runs the match app (and its rules) in process exposes theirs.
    embedding = dataclasses.replace(Settings(), match_transport="inprocess", rules_transport="inprocess")
    assert {"tabletop_actions_total", "tabletop_rules_chance_left_total"} <= _families("gateway", embedding)


async def test_a_batched_call_counts_as_the_unary_call_it_carries() -> None:
    labels = {"grpc_type": "unary", "grpc_service": authz.DICE, "grpc_method": "RollDice"}
    before = {
        "started": _sample("grpc_server_started_total", **labels),
        "ok": _sample("grpc_server_handled_total", **labels, grpc_code="OK"),
        "refused": _sample("grpc_server_handled_total", **labels, grpc_code="FAILED_PRECONDITION"),
        "carried": _sample("tabletop_rpc_carried_total", grpc_service=authz.DICE, grpc_method="RollDice",
                           carrier="batch"),
        "timed": _sample("grpc_server_handling_seconds_count", **labels),
    }
    dice = test_batch.Dice()
    client: DiceClient = test_batch.client(dice)
    results = await asyncio.gather(*(client.RollDice(test_batch.roll(n)) for n in (1, 2, 3, -1)),
                                   return_exceptions=True)
    assert isinstance(results[-1], FailedPrecondition)
    batched = sum(int(entry.split()[-1]) for entry in dice.handled if entry.startswith("batch of"))
    assert batched >= 2
    assert _sample("grpc_server_started_total", **labels) - before["started"] == batched
    assert _sample("tabletop_rpc_carried_total", grpc_service=authz.DICE, grpc_method="RollDice",
                   carrier="batch") - before["carried"] == batched
    assert _sample("grpc_server_handling_seconds_count", **labels) - before["timed"] == batched
    handled = (_sample("grpc_server_handled_total", **labels, grpc_code="OK") - before["ok"]
               + _sample("grpc_server_handled_total", **labels, grpc_code="FAILED_PRECONDITION") - before["refused"])
    assert handled == batched


def test_the_endpoint_serves_the_registry_of_the_roles_given() -> None:
    port = metrics.expose(0, metrics.roles("rules-pig", Settings()))
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as page:
        text = page.read().decode()
    assert "# TYPE grpc_server_handled_total counter" in text
    assert "tabletop_rules_chance_left_total" in text and "tabletop_appends_total" not in text
