"""Chance off the network path, with real processes in the services shape: the match rolls
from roll windows (one OpenWindow per many draw numbers) and hands each rules process the
slice it needs, so no process calls RollDice per action and the dice check the revealed
seed once per window, not per roll; every outcome is still the committed seed's, as
`tabletop verify` shows; and a rules process cannot plant a pile ahead of the match."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import Iterator

import grpc
import pytest
import redis
from tabletop.deck.v1 import deck_service_pb2 as deck_pb
from tabletop.deck.v1 import deck_service_pb2_grpc as deck_grpc
from tabletop.dice.v1 import dice_service_pb2 as dice_pb
from tabletop.dice.v1 import dice_service_pb2_grpc as dice_grpc
from tabletop.match.v1 import match_service_pb2 as mpb

from cli import autoplay
from cli.api import Gateway
from deploy.stack import ROOT, Stack
from services.common.draws import SLICE_COUNTERS, WINDOW_COUNTERS
from services.common.errors import reason_of
from services.common.security.grants import PILE_NOT_NEXT, GrantSigner
from services.dice.verify import verify

pytestmark = pytest.mark.integration

GAMES = {"TABLETOP_EXTRA_GAMES": "pig=tests.fixtures.pig,dice_hand=tests.fixtures.dice_hand"}
MOVES = 120  # dice_hand rolls once per move: almost four windows' worth


@pytest.fixture(scope="module")
def stack(redis_url: str) -> Iterator[Stack]:
    with Stack(redis_url=redis_url, extra_env=GAMES, games=("pig", "dice_hand"), matchmakers=0) as running:
        yield running


def _calls(stack: Stack, process: str, method: str) -> float:
    """grpc_server_handled_total of one method that `process` served, every status code."""
    port = stack.procs[process].metrics_port
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as page:
        text = page.read().decode()
    series = [line for line in text.splitlines() if line.startswith("grpc_server_handled_total{")]
    return sum(float(line.rsplit(" ", 1)[1]) for line in series if f'grpc_method="{method}"' in line)


def _dice_exists(redis_url: str) -> int:
    """EXISTS calls the server counted, but the append script's own (services/common/store/redis_store.py:
    on each append by the lease holder, one EXISTS then a PTTL or a PEXPIRE): the dice's
    revealed-seed checks."""
    client = redis.Redis.from_url(redis_url)
    try:
        stats = client.info("commandstats")
    finally:
        client.close()

    def calls(command: str) -> int:
        return int(stats.get(f"cmdstat_{command}", {}).get("calls", 0))

    return calls("exists") - calls("pttl") - calls("pexpire")


def _verified_by_the_cli(stack: Stack, match_id: str) -> bool:
    env = {**os.environ, **GAMES}
    checked = subprocess.run(
        [sys.executable, "-m", "cli", "verify", match_id, "--json", "--gateway", stack.gateway_addr],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True,
    )
    return bool(json.loads(checked.stdout)["ok"])


@pytest.mark.parametrize(("game", "config"), [("dice_hand", {"moves": str(MOVES)}), ("pig", {})])
async def test_dice_games_make_no_roll_call_per_action_and_verify(
    stack: Stack, redis_url: str, game: str, config: dict[str, str]
) -> None:
    processes = ("match", "dice", "deck", f"rules-{game}")
    before = {(p, m): _calls(stack, p, m) for p in processes for m in ("RollDice", "OpenWindow")}
    exists = _dice_exists(redis_url)
    async with Gateway(stack.gateway_addr) as gateway:
        result = await autoplay.play_match(gateway, game, 2, seed=17, config=config)
        entries = await gateway.log(result.match_id)
    assert result.summary.status == mpb.MATCH_STATUS_FINISHED
    report = verify((e.version, e.type, e.event.value) for e in entries)
    assert report.ok, report.problems
    assert report.rolls >= (MOVES if game == "dice_hand" else 10)
    after = {key: _calls(stack, *key) for key in before}
    # Nobody served a RollDice: every roll came from a window, at the match or in the rules.
    assert all(after[(p, "RollDice")] == before[(p, "RollDice")] for p in processes)
    windows = after[("dice", "OpenWindow")] - before[("dice", "OpenWindow")]
    last_draw_number = max(e.version for e in entries)  # more than the draw numbers the match used
    assert 1 <= windows <= 1 + last_draw_number // (WINDOW_COUNTERS - SLICE_COUNTERS)
    assert windows < report.rolls / 4
    # The dice check the revealed seed once per window and per hidden shuffle's permutation,
    # where they checked it on every roll.
    assert _dice_exists(redis_url) - exists <= windows + report.shuffles
    assert _verified_by_the_cli(stack, result.match_id)


def test_a_rules_certificate_cannot_plant_a_pile_ahead_of_the_match(stack: Stack) -> None:
    """Issue 27 item 6, as an attacker holding a rules process's certificate and a valid grant
    (the match's next draw number 0): a shuffle or put at a later draw number, in an order of
    its choosing, is refused; the match's own shuffle there then stands, with the seed's order."""
    match_id = uuid.uuid4().hex
    match = stack.credentials("match")
    grant = GrantSigner(match.cert, match.key).grant(match_id, 0)
    with stack.channel("dice", as_identity="match") as channel:
        dice_grpc.DiceServiceStub(channel).CommitSeed(dice_pb.CommitSeedRequest(match_id=match_id), timeout=5)
    planted = ["c3", "c1", "c2"]
    with stack.channel("deck", as_identity="rules") as channel:
        deck = deck_grpc.DeckServiceStub(channel)
        for call, request in (
            (deck.ShufflePile, deck_pb.ShufflePileRequest(
                match_id=match_id, pile="deck", counter=5, cards=planted, keep_order=True, grant=grant)),
            (deck.PutCards, deck_pb.PutCardsRequest(
                match_id=match_id, pile="deck", counter=5, from_counter=-1, cards=planted, grant=grant)),
        ):
            with pytest.raises(grpc.RpcError) as refused:
                call(request, timeout=5)
            assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
            assert reason_of(refused.value) == PILE_NOT_NEXT
            assert "c1" not in (refused.value.details() or "")
    with stack.channel("deck", as_identity="match") as channel:
        deck = deck_grpc.DeckServiceStub(channel)
        own = deck_pb.ShufflePileRequest(match_id=match_id, pile="deck", counter=5, cards=sorted(planted))
        assert deck.ShufflePile(own, timeout=5).size == 3  # not pile_conflict: nothing was planted
        deck.ReleaseMatch(deck_pb.ReleaseMatchRequest(match_id=match_id), timeout=5)
