"""What operators rely on: health, reflection, metrics, JSON logs, graceful shutdown."""

from __future__ import annotations

import asyncio
import json
import signal
import urllib.request

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from tabletop.match.v1 import match_service_pb2 as mpb

from cli import autoplay
from contract.gateway import SERVICES
from deploy.stack import Stack
from services.common.rpc.server import LIVENESS_SERVICE

pytestmark = pytest.mark.integration


def test_every_process_answers_health_checks(stack: Stack) -> None:
    # The HTTP edge answers on /healthz, for the gateway behind it.
    with urllib.request.urlopen(f"{stack.edge_url}/healthz", timeout=5) as answer:
        assert answer.read() == b"SERVING"
    for name in (name for name in stack.procs if name != "edge"):
        # Internal ports admit only platform certificates; the gateway's is plaintext.
        secure = name != "gateway"
        with stack.channel(name) if secure else grpc.insecure_channel(stack.addr(name)) as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING, name


def test_every_grpc_process_answers_probes_on_a_plaintext_health_only_port(stack: Stack) -> None:
    # An orchestrator's gRPC probe carries no client certificate: each process serves
    # health, and health alone, in plaintext on TABLETOP_HEALTH_PORT.
    from tabletop.match.v1 import match_service_pb2 as mpb
    from tabletop.match.v1 import match_service_pb2_grpc as mgrpc

    for name, proc in ((n, p) for n, p in stack.procs.items() if n != "edge"):
        assert proc.health_port > 0, name
        with grpc.insecure_channel(f"127.0.0.1:{proc.health_port}") as channel:
            for service in ("", LIVENESS_SERVICE):
                request = health_pb2.HealthCheckRequest(service=service)
                reply = health_pb2_grpc.HealthStub(channel).Check(request, timeout=5)
                assert reply.status == health_pb2.HealthCheckResponse.SERVING, (name, service)
            with pytest.raises(grpc.RpcError) as refused:
                mgrpc.MatchServiceStub(channel).GetMatch(mpb.GetMatchRequest(match_id="m"), timeout=5)
            assert refused.value.code() == grpc.StatusCode.UNIMPLEMENTED, name


def test_the_container_health_check_command_reports_serving(stack: Stack, monkeypatch) -> None:
    # What compose runs inside a container: exit 0 while SERVING, 1 otherwise.
    from deploy import probe

    port = stack.procs["match"].health_port
    assert probe.serving(port) and probe.serving(port, LIVENESS_SERVICE)
    assert not probe.serving(port, "no.such.service")
    monkeypatch.setenv("TABLETOP_HEALTH_PORT", str(port))
    assert probe.main([]) == 0 and probe.main(["no.such.service"]) == 1
    monkeypatch.delenv("TABLETOP_HEALTH_PORT")
    assert probe.main([]) == 2


def test_reflection_lists_the_gateway_services(stack: Stack) -> None:
    with grpc.insecure_channel(stack.gateway_addr) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        replies = stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
        names = {s.name for reply in replies for s in reply.list_services_response.service}
    assert {service.full_name for service in SERVICES} <= names
    assert "grpc.health.v1.Health" in names


async def test_metrics_and_json_logs_after_a_match(stack: Stack, gateway) -> None:
    result = await autoplay.play_match(gateway, "pig", 2, seed=21)
    metrics_port = stack.procs["match"].metrics_port
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as page:
        text = page.read().decode()
    # The gRPC ecosystem's names and labels; the match's own families beside them.
    assert 'grpc_server_handled_total{grpc_code="OK",grpc_method="SubmitAction",' in text
    assert 'grpc_server_handling_seconds_count{grpc_method="SubmitAction",' in text
    assert 'grpc_client_handled_total{grpc_code="OK",grpc_method="Decide",' in text
    assert "tabletop_appends_total" in text
    lines = [json.loads(line) for line in stack.tail("match", 400).splitlines() if line.startswith("{")]
    about = [line for line in lines if line.get("match_id") == result.match_id]
    assert any(line["event"] == "match_created" for line in about)
    assert all("level" in line and "timestamp" in line for line in lines)


def test_sigterm_drains_and_exits_cleanly(redis_url: str) -> None:
    stack = Stack(redis_url=redis_url, games=(), matchmakers=0, shape="match-local")
    stack.start()
    try:
        process = stack.procs["gateway"].process
        assert process is not None
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
        assert '"event": "stopped"' in stack.tail("gateway")
    finally:
        stack.stop()


async def test_concurrent_matches_reach_the_rules_on_exchange_streams_and_play_as_single_calls(
    stack: Stack, gateway
) -> None:
    """Sixteen matches at once: the match service's Decides reach the rules as messages on
    its Exchange stream (services/common/rpc/mux.py), none as a gRPC call of its own, each
    counted as a call, and every match still plays to its end."""
    results = await asyncio.gather(*(autoplay.play_match(gateway, "pig", 2, seed=300 + n) for n in range(16)))
    assert all(result.summary.status == mpb.MATCH_STATUS_FINISHED for result in results)
    text = _metrics(stack, "rules-pig")
    rules = 'grpc_method="Decide",grpc_service="tabletop.rules.v1.RulesService"'
    decided = _counter(text, f'grpc_server_handled_total{{grpc_code="OK",{rules},grpc_type="unary"}}')
    carried = _counter(text, f'tabletop_rpc_carried_total{{carrier="exchange",{rules}}}')
    assert decided >= 16 * 2  # every match decided at least one move per seat
    assert carried == decided  # every one on the stream, none as a call of its own
    # The rules export their own families and none of the match's.
    assert "tabletop_rules_chance_left_total" in text and "tabletop_appends_total" not in text


def _metrics(stack: Stack, process: str) -> str:
    port = stack.procs[process].metrics_port
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as page:
        return page.read().decode()


def _counter(text: str, series: str) -> float:
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(series))
