"""Sealed internals, with real processes: internal services answer platform callers only,
and each method only the callers whose job needs it."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from tabletop.common.v1 import chance_pb2
from tabletop.deck.v1 import deck_service_pb2 as deck_pb
from tabletop.deck.v1 import deck_service_pb2_grpc as deck_grpc
from tabletop.dice.v1 import dice_service_pb2 as dice_pb
from tabletop.dice.v1 import dice_service_pb2_grpc as dice_grpc
from tabletop.match.v1 import match_service_pb2 as match_pb
from tabletop.match.v1 import match_service_pb2_grpc as match_grpc
from tabletop.matchmaker.v1 import matchmaker_service_pb2 as mm_pb
from tabletop.matchmaker.v1 import matchmaker_service_pb2_grpc as mm_grpc
from tabletop.rules.v1 import rules_service_pb2 as rules_pb
from tabletop.rules.v1 import rules_service_pb2_grpc as rules_grpc

from cli import autoplay
from cli.api import Gateway
from deploy.stack import IDENTITY, ROOT, Stack
from services.common.errors import reason_of
from services.common.security import keyring, pki, tls
from services.common.security.grants import GrantSigner

pytestmark = pytest.mark.integration

PIG = {"TABLETOP_EXTRA_GAMES": "pig=tests.fixtures.pig"}
# process -> a harmless call on it: (stub, method, request)
PROBES: dict[str, tuple[Callable[[grpc.Channel], Any], str, Any]] = {
    "match": (match_grpc.MatchServiceStub, "GetMatch", match_pb.GetMatchRequest(match_id="nobody")),
    "dice": (dice_grpc.DiceServiceStub, "CommitSeed", dice_pb.CommitSeedRequest(match_id="probe")),
    "deck": (deck_grpc.DeckServiceStub, "ReleaseMatch", deck_pb.ReleaseMatchRequest(match_id="probe")),
    "rules-pig": (rules_grpc.RulesServiceStub, "DescribeGame", rules_pb.DescribeGameRequest()),
    "matchmaker": (mm_grpc.MatchmakerServiceStub, "GetRating", mm_pb.GetRatingRequest(player_id="p", game="pig")),
}


@pytest.fixture(scope="module")
def stack(redis_url: str) -> Iterator[Stack]:
    with Stack(redis_url=redis_url, extra_env=PIG, games=("pig",), matchmakers=1) as running:
        yield running


def _call(channel: grpc.Channel, name: str, stub: Any = None, method: str = "", request: Any = None) -> Any:
    stub_cls, probe_method, probe_request = PROBES[name]
    rpc = getattr((stub or stub_cls)(channel), method or probe_method)
    # No wait_for_ready: a refused handshake must fail now, not after a deadline.
    return rpc(request if request is not None else probe_request, timeout=5)


def _code(call: Callable[[], Any]) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as failed:
        call()
    return failed.value.code()


@pytest.mark.parametrize("name", sorted(PROBES))
def test_every_internal_service_answers_its_rightful_caller(stack: Stack, name: str) -> None:
    # The baseline the refusals below are measured against: the same probe, as a caller the policy allows.
    caller = {"match": "gateway", "matchmaker": "gateway"}.get(name, "match")
    with stack.channel(name, as_identity=caller) as channel:
        try:
            _call(channel, name)
        except grpc.RpcError as error:
            # A domain answer (no such match) still proves the call got through.
            assert error.code() == grpc.StatusCode.NOT_FOUND, error


@pytest.mark.parametrize("name", sorted(PROBES))
def test_no_client_certificate_no_call(stack: Stack, name: str) -> None:
    ca = stack.credentials("match").ca
    target = pki.server_name(IDENTITY[stack.procs[name].module])
    anonymous = grpc.ssl_channel_credentials(root_certificates=ca)
    with grpc.secure_channel(stack.addr(name), anonymous, options=[("grpc.ssl_target_name_override", target)]) as ch:
        assert _code(lambda: _call(ch, name)) == grpc.StatusCode.UNAVAILABLE
        health = health_pb2_grpc.HealthStub(ch)
        assert _code(lambda: health.Check(health_pb2.HealthCheckRequest(), timeout=5)) == grpc.StatusCode.UNAVAILABLE
    with grpc.insecure_channel(stack.addr(name)) as plaintext:
        assert _code(lambda: _call(plaintext, name)) == grpc.StatusCode.UNAVAILABLE


@pytest.mark.parametrize("name", sorted(PROBES))
def test_a_certificate_of_another_ca_is_refused(stack: Stack, name: str, tmp_path: pathlib.Path) -> None:
    target = IDENTITY[stack.procs[name].module]
    # The right names, the wrong authority: its own CA trusts it, ours does not.
    forged = pki.files(pki.ensure(tmp_path / "forged"), "match")
    own = tls.Material(stack.credentials("match").ca, forged.cert.read_bytes(), forged.key.read_bytes())
    with tls.channel(stack.addr(name), own, target) as channel:
        assert _code(lambda: _call(channel, name)) == grpc.StatusCode.UNAVAILABLE


def test_a_service_cannot_answer_as_another(stack: Stack) -> None:
    # Dialling "dice" but reaching the deck: the deck's certificate does not name dice.
    with tls.channel(stack.addr("deck"), stack.credentials("match"), "dice") as channel:
        stub = dice_grpc.DiceServiceStub(channel)
        assert _code(lambda: stub.CommitSeed(dice_pb.CommitSeedRequest(match_id="x"), timeout=5)) == (
            grpc.StatusCode.UNAVAILABLE
        )


WRONG_CALLERS = [
    ("gateway", "dice", dice_grpc.DiceServiceStub, "RevealSeed", dice_pb.RevealSeedRequest(match_id="m")),
    ("deck", "dice", dice_grpc.DiceServiceStub, "RevealSeed", dice_pb.RevealSeedRequest(match_id="m")),
    ("matchmaker", "dice", dice_grpc.DiceServiceStub, "RollDice",
     dice_pb.RollDiceRequest(match_id="m", counter=0, faces=6, count=1)),
    ("deck", "dice", dice_grpc.DiceServiceStub, "RollDice",
     dice_pb.RollDiceRequest(match_id="m", counter=0, faces=6, count=1)),
    ("gateway", "dice", dice_grpc.DiceServiceStub, "Permute", dice_pb.PermuteRequest(match_id="m", counter=0, n=5)),
    ("gateway", "deck", deck_grpc.DeckServiceStub, "DrawCards",
     deck_pb.DrawCardsRequest(match_id="m", pile="p", counter=0, offset=0, count=1)),
    ("matchmaker", "deck", deck_grpc.DeckServiceStub, "ReleaseMatch", deck_pb.ReleaseMatchRequest(match_id="m")),
    ("gateway", "rules-pig", rules_grpc.RulesServiceStub, "Decide", rules_pb.DecideRequest()),
    ("dice", "rules-pig", rules_grpc.RulesServiceStub, "DescribeGame", rules_pb.DescribeGameRequest()),
    ("matchmaker", "match", match_grpc.MatchServiceStub, "ListMatches", match_pb.ListMatchesRequest()),
    # A whole position holds every seat's secrets: the rules give it to the match, the match to the gateway.
    ("gateway", "rules-pig", rules_grpc.RulesServiceStub, "GetPosition", rules_pb.GetPositionRequest()),
    ("matchmaker", "match", match_grpc.MatchServiceStub, "GetPosition", match_pb.GetPositionRequest(match_id="m")),
    ("deck", "match", match_grpc.MatchServiceStub, "SubmitAction", match_pb.SubmitActionRequest(match_id="m")),
    ("match", "matchmaker", mm_grpc.MatchmakerServiceStub, "FindMatch", mm_pb.FindMatchRequest(game="pig")),
    # A rules process draws under a match's grant, and does nothing else to the dice or the deck.
    # It rolls from the slice of the match's window it is handed: no roll and no window of its own.
    ("rules", "dice", dice_grpc.DiceServiceStub, "RollDice",
     dice_pb.RollDiceRequest(match_id="m", counter=0, faces=6, count=1)),
    ("rules", "dice", dice_grpc.DiceServiceStub, "OpenWindow",
     dice_pb.OpenWindowRequest(match_id="m", first_counter=0, counters=8, dice=2)),
    ("deck", "dice", dice_grpc.DiceServiceStub, "OpenWindow",
     dice_pb.OpenWindowRequest(match_id="m", first_counter=0, counters=8, dice=2)),
    ("rules", "dice", dice_grpc.DiceServiceStub, "RevealSeed", dice_pb.RevealSeedRequest(match_id="m")),
    ("rules", "dice", dice_grpc.DiceServiceStub, "CommitSeed", dice_pb.CommitSeedRequest(match_id="m")),
    ("rules", "deck", deck_grpc.DeckServiceStub, "ReleaseMatch", deck_pb.ReleaseMatchRequest(match_id="m")),
]


def test_the_matchmaker_may_see_a_bot_seats_view_only(stack: Stack) -> None:
    # Its backfill bots read their own seat's view; a spectator's (or anyone's) is refused.
    with stack.channel("match", as_identity="matchmaker") as channel, pytest.raises(grpc.RpcError) as refused:
        match_grpc.MatchServiceStub(channel).GetView(match_pb.GetViewRequest(match_id="m"), timeout=5)
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert reason_of(refused.value) == "view.bot_seat_only"


@pytest.mark.parametrize(("caller", "name", "stub", "method", "request_"), WRONG_CALLERS)
def test_another_services_certificate_is_refused_per_method(
    stack: Stack, caller: str, name: str, stub: Any, method: str, request_: Any
) -> None:
    with stack.channel(name, as_identity=caller) as channel, pytest.raises(grpc.RpcError) as refused:
        getattr(stub(channel), method)(request_, timeout=5)
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert reason_of(refused.value) == "auth.method_denied"
    # Says nothing about the stack: no addresses, no identities that may call.
    details = refused.value.details()
    assert "127.0.0.1" not in details and "match" not in details.replace(method, "")


def test_streams_are_checked_like_unary_calls(stack: Stack) -> None:
    watch = mm_pb.WatchTicketRequest(ticket_id="t")
    with stack.channel("matchmaker", as_identity="match") as channel, pytest.raises(grpc.RpcError) as refused:
        list(mm_grpc.MatchmakerServiceStub(channel).WatchTicket(watch, timeout=5))
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED


async def test_dice_refuse_every_draw_once_a_match_has_ended(stack: Stack) -> None:
    async with Gateway(stack.gateway_addr) as gateway:
        result = await autoplay.play_match(gateway, "pig", 2, seed=5)
    assert result.summary.status == match_pb.MATCH_STATUS_FINISHED
    with stack.channel("dice", as_identity="match") as channel:
        dice = dice_grpc.DiceServiceStub(channel)
        # Even the match itself gets no draw from a revealed seed: it would be predictable.
        draws = [
            lambda: dice.RollDice(dice_pb.RollDiceRequest(match_id=result.match_id, counter=10**6, faces=6, count=1)),
            lambda: dice.Permute(dice_pb.PermuteRequest(match_id=result.match_id, counter=10**6, n=3)),
            lambda: dice.OpenWindow(
                dice_pb.OpenWindowRequest(match_id=result.match_id, first_counter=10**6, counters=8, dice=2)
            ),
        ]
        for draw in draws:
            with pytest.raises(grpc.RpcError) as refused:
                draw()
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert reason_of(refused.value) == "dice.seed_revealed"


def _draws(grant: chance_pb2.ChanceGrant | None) -> list[tuple[str, Any, str, Any]]:
    """Every draw a rules process might ask for match "m", carrying `grant`."""
    return [
        ("dice", dice_grpc.DiceServiceStub, "Permute",
         dice_pb.PermuteRequest(match_id="m", counter=0, n=3, grant=grant)),
        ("deck", deck_grpc.DeckServiceStub, "ShufflePile",
         deck_pb.ShufflePileRequest(match_id="m", pile="p", counter=0, cards=["a", "b"], grant=grant)),
        ("deck", deck_grpc.DeckServiceStub, "DrawCards",
         deck_pb.DrawCardsRequest(match_id="m", pile="p", counter=0, offset=0, count=1, grant=grant)),
        ("deck", deck_grpc.DeckServiceStub, "PutCards",
         deck_pb.PutCardsRequest(match_id="m", pile="p", counter=0, from_counter=-1, cards=["a"], grant=grant)),
    ]


def _signer(stack: Stack, identity: str) -> GrantSigner:
    own = stack.credentials(identity)
    return GrantSigner(own.cert, own.key)


def test_a_rules_certificate_draws_nothing_without_the_match_s_grant(stack: Stack) -> None:
    """As an attacker holding a rules process's certificate and key: no grant, a grant it
    signed itself, and the match's genuine grant for another match are all refused."""
    attempts = [
        (None, "chance.grant_missing"),
        (_signer(stack, "rules").grant("m", 0), "chance.grant_invalid"),
        (_signer(stack, "match").grant("another", 0), "chance.grant_other_match"),
    ]
    for grant, reason in attempts:
        for name, stub, method, request in _draws(grant):
            with stack.channel(name, as_identity="rules") as channel, pytest.raises(grpc.RpcError) as refused:
                getattr(stub(channel), method)(request, timeout=5)
            assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED, (method, reason)
            assert reason_of(refused.value) == reason, method


def test_a_rules_process_deals_under_the_match_s_grant(stack: Stack) -> None:
    """The rules process dials the real dice and deck: after a move (here the opening
    shuffle's outcome) it deals both bonus cards itself, the cards the deck gives the match."""
    match_id = uuid.uuid4().hex
    with stack.channel("dice", as_identity="match") as channel:
        dice_grpc.DiceServiceStub(channel).CommitSeed(dice_pb.CommitSeedRequest(match_id=match_id), timeout=5)
    with stack.channel("rules-pig", as_identity="match") as rules_channel:
        rules = rules_grpc.RulesServiceStub(rules_channel)
        setup = rules.Setup(rules_pb.SetupRequest(game="pig", seat_count=2), timeout=5)
        shuffle = setup.turn.chance.shuffle_pile
        with stack.channel("deck", as_identity="match") as channel:
            deck = deck_grpc.DeckServiceStub(channel)
            shuffled = deck.ShufflePile(
                deck_pb.ShufflePileRequest(match_id=match_id, pile=shuffle.pile, counter=0, cards=shuffle.cards),
                timeout=5,
            )
            request = rules_pb.DecideRequest(
                state=setup.state, seat=-1, position_seats=2,
                chance=chance_pb2.ChanceOutcome(
                    pile_shuffled=chance_pb2.PileShuffled(pile=shuffle.pile, size=shuffled.size)
                ),
                grant=_signer(stack, "match").grant(match_id, 1),
                cursor=rules_pb.ChanceCursor(
                    match_id=match_id, next_counter=1,
                    piles=[rules_pb.PileCursor(name=shuffle.pile, counter=0, size=shuffled.size)],
                ),
            )
            decided = rules.Decide(request, timeout=5)
            dealt = deck.DrawCards(
                deck_pb.DrawCardsRequest(match_id=match_id, pile=shuffle.pile, counter=0, offset=0, count=2),
                timeout=5,
            ).cards
    assert [step.request.WhichOneof("kind") for step in decided.steps] == ["draw_cards", "draw_cards"]
    assert [(step.counter, step.pile_counter, step.pile_offset) for step in decided.steps] == [(-1, 0, 0), (-1, 0, 1)]
    assert [card for step in decided.steps for card in step.outcome.cards_drawn.cards] == list(dealt)
    assert list(decided.turn.seats) == [0] and decided.HasField("position")


@pytest.mark.parametrize("module", ["services.dice", "services.match", "gateway"])
def test_a_process_without_credentials_refuses_to_start(redis_url: str, module: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_TLS_")}
    env.update(REDIS_URL=redis_url, TABLETOP_PORT="0", PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "gen")]))
    env["TABLETOP_TOKEN_KEYS"] = keyring.dumps(keyring.generate())  # the gateway's other requirement
    done = subprocess.run(
        [sys.executable, "-m", module], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0
    assert "TABLETOP_TLS_CERT" in done.stderr and "no insecure mode" in done.stderr


@pytest.mark.parametrize("keys", ["", '{"active": "k", "keys": {"k": "c2hvcnQ="}}'])
def test_a_gateway_without_strong_token_keys_refuses_to_start(redis_url: str, tmp_path: pathlib.Path,
                                                              keys: str) -> None:
    """No signing key is built in: none, or a weak one, and the gateway will not start."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_TOKEN_KEYS")}
    env.update(REDIS_URL=redis_url, TABLETOP_PORT="0", PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "gen")]))
    if keys:
        env["TABLETOP_TOKEN_KEYS"] = keys
    done = subprocess.run(
        [sys.executable, "-m", "gateway"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0
    assert "refusing to start" in done.stderr and ("no token signing keys" in done.stderr or "bytes" in done.stderr)


def test_a_service_refuses_a_redis_url_without_a_password(redis_url: str, tmp_path: pathlib.Path) -> None:
    """Outside the launcher's explicit local mode, a service will not talk to Redis as nobody."""
    stack = Stack()
    creds = pki.files(stack.pki_dir, "dice")
    env = {k: v for k, v in os.environ.items() if k != "TABLETOP_REDIS_INSECURE"}
    env.update(REDIS_URL="redis://127.0.0.1:1/0", TABLETOP_PORT="0", TABLETOP_TLS_CA=str(creds.ca),
               TABLETOP_TLS_CERT=str(creds.cert), TABLETOP_TLS_KEY=str(creds.key),
               PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "gen")]))
    try:
        done = subprocess.run([sys.executable, "-m", "services.dice"], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=60)
    finally:
        stack.stop()
    assert done.returncode != 0
    assert "REDIS_URL carries no password" in done.stderr
