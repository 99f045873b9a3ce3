"""Matchmaking throughput and latency, with one and with two matchmaker replicas.

Each simulated player, signed in beforehand (a session serves many tickets),
asks the gateway for a two-seat pig match over one Queue stream and reads it
until the assignment arrives, as `tabletop queue` does. Reported, for each
ticket transport (the gateway serving the ticket calls itself, or each call
crossing to a replica): tickets matched per second over the run, CPU per
ticket of every process and of each matchmaker replica, time from the Queue
call to the assignment on its stream (p50/p99), and the two-replica figures
as a ratio of the one-replica run on the same machine. One and two replicas
are measured twice each, in the order 1, 2, 2, 1, and each pair is pooled: a
drift in the machine's speed over the four runs weighs on both alike.

Then the matchmaker alone on a backlog (BENCH_MM_BACKLOG tickets queued
straight into Redis, nobody watching): its CPU per ticket once its batches
fill, per replica, which is what N replicas on N machines scale by.

Pools are partitioned among the live replicas by rendezvous hash
(services/matchmaker/partition.py); formation jobs are shared by all of them.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc
from tabletop.gateway.v1 import gateway_pb2 as pb
from tabletop.matchmaker.v1 import matchmaker_service_pb2 as mmpb

from bench import cpu
from contract.gateway import GatewayStub
from deploy.stack import UNLIMITED_CALLERS, Stack
from services.common.rpc.transport import CHANNEL_OPTIONS

TICKETS = int(os.environ.get("BENCH_MM_TICKETS", "2000"))
PARALLEL = int(os.environ.get("BENCH_MM_PARALLEL", "64"))
BACKLOG = int(os.environ.get("BENCH_MM_BACKLOG", "2000")) // 2 * 2  # even: every ticket finds a mate
PAIRS = 30
# Replicas of each sitting, in turn: one and two alike see the machine's drift.
ORDER = (1, 2, 2, 1)
Metadata = tuple[tuple[str, str], ...]
PIG = {"TABLETOP_EXTRA_GAMES": "pig=tests.fixtures.pig"}
IN_GATEWAY = {"TABLETOP_MATCHMAKER_TRANSPORT": "inprocess"}


async def _signed_in(stub: Any, n: int, run: str) -> Metadata:
    """Player `n`'s session metadata."""
    signed = await stub.Authenticate(pb.AuthenticateRequest(device_id=f"bench-device-{run}-{n}"), wait_for_ready=True)
    return (("authorization", f"Bearer {signed.session_token}"),)


async def _player(stub: Any, n: int, run: str, session: Metadata) -> float:
    """One player: queue, then read the stream until assigned; returns seconds to the assignment."""
    started = time.perf_counter()
    request = pb.QueueRequest(game="pig", players_min=2, command_id=f"{run}-{n}")
    async for update in stub.Queue(request, metadata=session, wait_for_ready=True):
        if update.status == mmpb.TICKET_STATUS_ASSIGNED:
            return time.perf_counter() - started
    raise RuntimeError(f"player {n}'s ticket was never assigned")


async def _load(
    addr: str, count: int, run: str, mark: Callable[[], None] = lambda: None
) -> tuple[float, float, list[float], list[float]]:
    """(seconds for every player's sign-in, seconds for `count` tickets under load, their waits,
    waits of pairs arriving alone); `mark` is called just before and just after the sign-ins,
    then the timed load (CPU readings). Every player signs in before the timed load: a
    ticket's time runs from its Queue call."""
    slots = asyncio.Semaphore(PARALLEL)
    total = 16 + count + 2 * PAIRS
    async with grpc.aio.insecure_channel(addr, options=CHANNEL_OPTIONS) as channel:
        stub = GatewayStub(channel)

        async def signed_in(n: int) -> Metadata:
            async with slots:
                return await _signed_in(stub, n, run)

        mark()
        signing = time.perf_counter()
        sessions = await asyncio.gather(*(signed_in(n) for n in range(total)))
        signing = time.perf_counter() - signing
        mark()

        async def one(n: int) -> float:
            async with slots:
                return await _player(stub, n, run, sessions[n])

        await asyncio.gather(*(one(n) for n in range(16)))  # warm-up: connections, caches, consumer groups
        mark()
        started = time.perf_counter()
        waits = await asyncio.gather(*(one(n) for n in range(16, 16 + count)))
        elapsed = time.perf_counter() - started
        mark()
        alone: list[float] = []
        for pair in range(PAIRS):  # unloaded: one pair at a time, the pipeline's own latency
            n = 16 + count + 2 * pair
            alone += await asyncio.gather(one(n), one(n + 1))
        return signing, elapsed, list(waits), alone


@dataclass(frozen=True)
class Sitting:
    """One stack's timed load: its tickets, seconds, each process's CPU seconds, the waits."""

    tickets: int
    seconds: float
    cpu_seconds: dict[str, float]  # by process name
    waits: list[float]
    alone: list[float]
    sign_ins: int  # before the timed load, one per player
    sign_in_seconds: float
    sign_in_cpu_seconds: float  # every process


def _sit(replicas: int, count: int, desk: bool = False) -> Sitting:
    """One stack with `replicas` matchmakers (`desk`: the gateway serves the ticket calls)."""
    env = {**PIG, **UNLIMITED_CALLERS, **(IN_GATEWAY if desk else {})}
    stack = Stack(games=("pig",), extra_env=env, matchmakers=replicas)
    readings: list[dict[int, float]] = []
    try:
        stack.start()
        roots = {name: proc.process.pid for name, proc in stack.procs.items() if proc.process is not None}
        roots |= {f"redis-{i}": n.process.pid for i, n in enumerate(stack.redis_nodes) if n.process is not None}
        signing, elapsed, waits, alone = asyncio.run(_load(
            stack.gateway_addr, count, f"r{replicas}", lambda: readings.append(cpu.cpu_seconds(roots.values()))
        ))
    finally:
        stack.stop()
    signing_before, signing_after, before, after = readings
    used = {name: after.get(pid, 0.0) - before.get(pid, 0.0) for name, pid in roots.items()}
    sign_ins = 16 + count + 2 * PAIRS
    return Sitting(count, elapsed, used, waits, alone, sign_ins, signing,
                   cpu.used_between(signing_before, signing_after))


def _pooled(replicas: int, sittings: list[Sitting]) -> dict[str, Any]:
    """The figures of several sittings with the same number of replicas, taken as one run."""
    count = sum(s.tickets for s in sittings)
    names = sorted({name for s in sittings for name in s.cpu_seconds})
    per_ticket = {name: round(sum(s.cpu_seconds.get(name, 0.0) for s in sittings) * 1000 / count, 3)
                  for name in names}
    replicas_cpu = {name: ms for name, ms in per_ticket.items() if name.startswith("matchmaker")}
    waits = [w for s in sittings for w in s.waits]
    alone = [w for s in sittings for w in s.alone]
    return {
        "replicas": replicas,
        "tickets": count,
        "sittings": len(sittings),
        "parallel_players": PARALLEL,
        "tickets_per_s": round(count / sum(s.seconds for s in sittings), 1),
        "tickets_per_s_by_sitting": [round(s.tickets / s.seconds, 1) for s in sittings],
        # Server CPU per ticket (ms) while loaded: every process, and each matchmaker replica's own.
        "cpu_ms_per_ticket_all": round(sum(per_ticket.values()), 3),
        "cpu_ms_per_ticket_by_process": per_ticket,
        "matchmaker_cpu_ms_per_ticket": replicas_cpu,
        "matchmaker_cpu_ms_per_ticket_total": round(sum(replicas_cpu.values()), 3),
        # Under load: mostly queueing behind the other players (Little's law).
        "p50_ms": _ms(waits, 0.5),
        "p99_ms": _ms(waits, 0.99),
        # One pair at a time: queue + group + one FormMatch + assign + delivery on the stream.
        "unloaded_p50_ms": _ms(alone, 0.5),
        "unloaded_p99_ms": _ms(alone, 0.99),
        # The players' sign-ins before the timed load (a session serves many tickets): apart.
        "sign_ins_per_s": round(sum(s.sign_ins for s in sittings) / sum(s.sign_in_seconds for s in sittings), 1),
        "cpu_ms_per_sign_in_all": round(
            sum(s.sign_in_cpu_seconds for s in sittings) * 1000 / sum(s.sign_ins for s in sittings), 3
        ),
    }


async def _burst(redis_url: str, count: int, mark: Callable[[], None]) -> float:
    """`count` tickets queued straight into Redis at once (no gateway, no watchers), then
    waited for until every one is assigned; returns the seconds that took. The matchmaker
    meets a backlog: full grouping passes and formation batches (group commits), the
    per-ticket cost it tends to as the load grows, apart from the gateway's."""
    import redis.asyncio as aioredis

    from services.matchmaker.store import TicketStore

    client = aioredis.Redis.from_url(redis_url, decode_responses=False)
    store = TicketStore(client)
    options = {"target": f"burst-{time.time_ns()}"}  # a pool of its own
    try:
        mark()
        started = time.perf_counter()
        ids = await asyncio.gather(*(
            store.add(os.urandom(16).hex(), f"burst-{n}", "pig", options, (2, 2), 25.0) for n in range(count)
        ))
        while True:
            async with client.pipeline(transaction=False) as pipe:
                for ticket_id in ids:
                    pipe.hget(f"tabletop:{{mm}}:t:{ticket_id}", "s")
                states = await pipe.execute()
            if all(s == b"assigned" for s in states):
                break
            await asyncio.sleep(0.25)
        elapsed = time.perf_counter() - started
        mark()
        return elapsed
    finally:
        await client.aclose()


def _measure_burst(replicas: int, count: int) -> dict[str, Any]:
    """Matchmaker CPU per ticket on a backlog of `count` tickets (see _burst)."""
    # Nobody watches these tickets: no abandonment (a backlog may take longer than the grace period).
    env = {**PIG, **UNLIMITED_CALLERS, "TABLETOP_MM_WATCH_GRACE": "0"}
    stack = Stack(games=("pig",), extra_env=env, matchmakers=replicas)
    readings: list[dict[int, float]] = []
    try:
        stack.start()
        roots = {name: proc.process.pid for name, proc in stack.procs.items()
                 if proc.process is not None and name.startswith("matchmaker")}
        elapsed = asyncio.run(_burst(stack.redis_url, count, lambda: readings.append(cpu.cpu_seconds(roots.values()))))
    finally:
        stack.stop()
    before, after = readings
    per_replica = {name: _per_ticket(before, after, pid, count) for name, pid in roots.items()}
    return {"replicas": replicas, "tickets": count, "seconds": round(elapsed, 2),
            "tickets_per_s": round(count / elapsed, 1), "matchmaker_cpu_ms_per_ticket": per_replica,
            "matchmaker_cpu_ms_per_ticket_total": round(sum(per_replica.values()), 3)}


def _per_ticket(before: dict[int, float], after: dict[int, float], pid: int, count: int) -> float:
    """One process's CPU ms per ticket between the readings."""
    return round((after.get(pid, 0.0) - before.get(pid, 0.0)) * 1000 / count, 3)


def _ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if q == 0.5:
        return round(statistics.median(ordered) * 1000, 1)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000, 1)


SHAPES = {
    # The gateway serves FindMatch/WatchTicket itself on the tickets in Redis
    # (TABLETOP_MATCHMAKER_TRANSPORT=inprocess); the replicas group and form.
    "tickets_in_gateway": True,
    # Every ticket call crosses to a matchmaker replica over gRPC (the default transport).
    "tickets_via_matchmaker": False,
}


def run() -> dict[str, Any]:
    """Both ticket transports, each with one and two replicas, and the two-to-one ratios."""
    found: dict[str, Any] = {
        # Targets (issue 14): a replica's own CPU per ticket <= 0.2 ms, and >= 2,000 tickets/s
        # end to end for a 2-seat game; reported as measured, with whether each was met.
        "target_matchmaker_cpu_ms_per_ticket": 0.2,
        "target_tickets_per_s": 2000,
        "note": "pig, 2 seats per match, each ticket watched until assigned, through the gateway; "
                "matchmaker_cpu_ms_per_ticket_total is every replica's CPU over every ticket: "
                "N replicas on N machines place about N * 1000 / that many tickets per second "
                "(pools spread evenly, the rest of the stack not the limit)",
    }
    for shape, desk in SHAPES.items():
        sittings: dict[int, list[Sitting]] = {1: [], 2: []}
        for replicas in ORDER:
            sittings[replicas].append(_sit(replicas, TICKETS, desk))
        one, two = _pooled(1, sittings[1]), _pooled(2, sittings[2])
        found[shape] = {
            "one_replica": one,
            "two_replicas": two,
            "throughput_ratio_2_to_1": round(two["tickets_per_s"] / one["tickets_per_s"], 2),
            "p50_ratio_2_to_1": round(two["p50_ms"] / one["p50_ms"], 2),
            "matchmaker_cpu_target_met": one["matchmaker_cpu_ms_per_ticket_total"] <= 0.2,
            "throughput_target_met": max(one["tickets_per_s"], two["tickets_per_s"]) >= 2000,
        }
        for run_ in (one, two):
            print(f"[matchmaking {shape}] {run_['replicas']} replica(s): {run_['tickets_per_s']} tickets/s "
                  f"(sittings {run_['tickets_per_s_by_sitting']}), "
                  f"matchmaker {run_['matchmaker_cpu_ms_per_ticket']} ms/ticket "
                  f"(total {run_['matchmaker_cpu_ms_per_ticket_total']}), all processes "
                  f"{run_['cpu_ms_per_ticket_all']} ms/ticket, p50 {run_['p50_ms']} ms", file=sys.stderr)
    # The matchmaker alone on a backlog (tickets queued straight into Redis, nobody watching):
    # what a replica costs per ticket once batches fill, which is what N replicas scale.
    backlog = {"one_replica": _measure_burst(1, BACKLOG), "two_replicas": _measure_burst(2, BACKLOG)}
    backlog["matchmaker_cpu_target_met"] = backlog["one_replica"]["matchmaker_cpu_ms_per_ticket_total"] <= 0.2
    found["backlog"] = backlog
    for run_ in (backlog["one_replica"], backlog["two_replicas"]):
        print(f"[matchmaking backlog] {run_['replicas']} replica(s): {run_['tickets']} tickets in {run_['seconds']} s "
              f"({run_['tickets_per_s']}/s, formation-bound), matchmaker {run_['matchmaker_cpu_ms_per_ticket']} "
              f"ms/ticket (total {run_['matchmaker_cpu_ms_per_ticket_total']})", file=sys.stderr)
    return found


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
