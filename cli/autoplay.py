"""Bots that play one whole match through the gateway.

One spectator watch stream tells the bots when the match moved; each seat
asked to act picks a legal action: uniformly at random (`random`, the default),
or by the information-set search of bots (`search`), which decides
from exactly what the seat's client receives: its view and its legal actions,
decoded by the game's codec (docs/bots.md). The command id is derived from
(seat, version), so two submits for the same decision collapse into one.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import grpc
from google.protobuf import any_pb2
from tabletop.gateway.v1 import gateway_pb2 as pb
from tabletop.match.v1 import match_service_pb2 as mpb

from bots import wire
from bots.policies import Policy, make_policy
from bots.search import Budget
from cli.api import Gateway, Seat, WatchCall
from services.games import registry

# Refusals a bot may meet when its view of the match is a step behind.
RACE_CODES = (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED)
STALL_SECONDS = 5.0
BACKOFF_ATTEMPTS = 20
BACKOFF_SECONDS = 0.05


@dataclass
class BotResult:
    match_id: str
    game: str
    actions: int
    seconds: float
    summary: mpb.MatchSummary
    latencies: list[float]
    seats: list[Seat]
    # One policy per seat, for bots that read their view; none: random choices from the drive's rng.
    policies: dict[int, Policy] | None = None


async def play_match(
    gateway: Gateway,
    game: str,
    players: int,
    seed: int,
    config: dict[str, str] | None = None,
    max_actions: int = 100_000,
    stop_at: float | None = None,
    stop_after: int | None = None,
    bot: str = "random",
    budget: Budget | None = None,
    started: Callable[[BotResult], None] | None = None,
) -> BotResult:
    """Create, fill, start and play one match to its end (or until a stop condition).

    `bot` is the policy of every seat (bots/policies.py); `budget` bounds a search bot's decisions.
    `started` is handed the result as soon as the match has started: it is kept up to date as play goes
    on (progress reports)."""
    # Policies first: a game without a search bot is refused before any match is made.
    policies = None
    if bot != "random":
        declared = registry.declaration(game)
        policies = {seat: make_policy(bot, declared, players, f"{seed}:{seat}", budget) for seat in range(players)}
    seats = await open_match(gateway, game, players, seed, config)
    result = BotResult(seats[0].match_id, game, 0, 0.0, mpb.MatchSummary(), [], seats, policies)
    if started is not None:
        started(result)
    await drive(gateway, result, random.Random(seed), max_actions, stop_at, stop_after)
    return result


async def open_match(
    gateway: Gateway, game: str, players: int, seed: int, config: dict[str, str] | None = None, crew: str = ""
) -> list[Seat]:
    """A new started match with one bot in every seat: the bots of `crew` (the same
    players, signed in once, for every match of a crew), or new ones named by the seed."""
    created = await gateway.create(game, players, config)
    match_id = created.match.match_id
    seats = [await gateway.join(match_id, f"bot-{crew or seed}-{i}") for i in range(players)]
    await gateway.start(seats[0])
    return seats


async def drive(
    gateway: Gateway,
    result: BotResult,
    rng: random.Random,
    max_actions: int = 100_000,
    stop_at: float | None = None,
    stop_after: int | None = None,
) -> None:
    """Play the bots of `result.seats` from wherever the match stands; updates `result` as it goes,
    so a caller can resume after a failure."""
    started = time.perf_counter()
    by_seat = {s.seat: s for s in result.seats}
    summary = result.summary = (await gateway.view(result.match_id)).match
    watch = _Updates(lambda after: gateway.watch(result.match_id, after=after), summary.version)
    try:
        while summary.status != mpb.MATCH_STATUS_FINISHED:
            if (stop_at is not None and time.perf_counter() > stop_at) or (
                stop_after is not None and result.actions >= stop_after
            ):
                break
            if result.actions >= max_actions:
                raise RuntimeError(f"match {result.match_id} did not end within {max_actions} actions")
            moved = await asyncio.gather(
                *(_act(gateway, by_seat[seat], summary.version, rng, result) for seat in summary.to_move)
            )
            result.actions += sum(moved)
            summary = result.summary = await _next_summary(gateway, watch, summary)
    finally:
        watch.cancel()
        result.seconds += time.perf_counter() - started


class _Updates:
    """A watch stream read with a patience limit; reopened where it left off if it ends."""

    def __init__(self, open_from: Callable[[int], WatchCall], after: int) -> None:
        self._open_from = open_from
        self._call = open_from(after)
        self._pending: asyncio.Task[pb.WatchMatchResponse] | None = None

    async def next(self, timeout: float) -> pb.WatchMatchResponse | None:
        """The next update, or None if none came in time (the read stays pending)."""
        if self._pending is None:
            self._pending = asyncio.ensure_future(self._call.read())
        done, _ = await asyncio.wait({self._pending}, timeout=timeout)
        if not done:
            return None
        task, self._pending = self._pending, None
        try:
            update = task.result()
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            return None  # ended resumably (a draining gateway): the caller reopens it
        if update is grpc.aio.EOF:
            return None
        return update

    def reopen(self, after: int) -> None:
        """Follow the match again from `after` (the stream ended before the match did)."""
        self.cancel()
        self._call = self._open_from(after)

    def ended(self) -> bool:
        return bool(self._call.done())

    def cancel(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        self._call.cancel()


async def _next_summary(gateway: Gateway, watch: _Updates, current: mpb.MatchSummary) -> mpb.MatchSummary:
    """The summary after the next update that moves the match on.

    If no update comes for a while (every submit lost a race), ask afresh.
    """
    while True:
        update = await watch.next(STALL_SECONDS)
        if update is None:
            fresh: mpb.MatchSummary = (await gateway.view(current.match_id)).match
            if watch.ended():
                watch.reopen(fresh.version)
            return fresh
        if update.match.version > current.version or update.match.status == mpb.MATCH_STATUS_FINISHED:
            return update.match


async def _choose(gateway: Gateway, seat: Seat, result: BotResult, rng: random.Random) -> any_pb2.Any | None:
    """The action `seat`'s bot takes now, from what its client receives; None if it has none."""
    legal = await gateway.legal_actions(seat)
    if not legal.actions:
        return None
    policy = None if result.policies is None else result.policies.get(seat.seat)
    if policy is None:
        return legal.actions[rng.randrange(len(legal.actions))]
    seen = await gateway.view(seat.match_id, seat)
    codec = registry.game(result.game).codec
    # The search is CPU work: off the event loop, so the watch stream and other seats stay served.
    return await asyncio.to_thread(wire.choose, policy, codec, seat.seat, seen.view, list(legal.actions))


async def _act(gateway: Gateway, seat: Seat, version: int, rng: random.Random, result: BotResult) -> int:
    """Submit one legal action for `seat`, as its policy picks it; 1 if it was applied.

    Told to slow down (RESOURCE_EXHAUSTED), the bot waits and sends the same
    command again, as a well-behaved client does.
    """
    action = await _choose(gateway, seat, result, rng)
    if action is None:
        return 0
    latencies = result.latencies
    for attempt in range(BACKOFF_ATTEMPTS):
        started = time.perf_counter()
        try:
            await gateway.submit(seat, action, command_id=f"bot-{seat.seat}-v{version}")
        except grpc.aio.AioRpcError as error:
            if error.code() in RACE_CODES:
                return 0
            if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED or attempt == BACKOFF_ATTEMPTS - 1:
                raise
            await asyncio.sleep(BACKOFF_SECONDS * (attempt + 1))
            continue
        latencies.append(time.perf_counter() - started)
        return 1
    return 0
