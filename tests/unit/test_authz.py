"""The per-method policy: every internal method has callers, the call graph is the real one."""

from __future__ import annotations

import asyncio

import pytest
from tabletop.deck.v1 import deck_service_pb2
from tabletop.dice.v1 import dice_service_pb2
from tabletop.match.v1 import match_service_pb2
from tabletop.matchmaker.v1 import matchmaker_service_pb2
from tabletop.rules.v1 import rules_service_pb2

from services.common import authz, pki
from services.common.adapters import DeckClient, DiceClient, MatchClient, MatchmakerClient, RulesClient
from services.common.errors import PermissionDenied

INTERNAL = [
    (deck_service_pb2, "DeckService"),
    (dice_service_pb2, "DiceService"),
    (match_service_pb2, "MatchService"),
    (matchmaker_service_pb2, "MatchmakerService"),
    (rules_service_pb2, "RulesService"),
]


def _methods() -> list[str]:
    found = []
    for module, name in INTERNAL:
        service = module.DESCRIPTOR.services_by_name[name]
        found += [f"/{service.full_name}/{m.name}" for m in service.methods]
    return found


def test_every_internal_method_is_in_the_table_and_nothing_else_is() -> None:
    assert set(authz.POLICY) == set(_methods())
    for callers in authz.POLICY.values():
        assert callers and callers <= set(pki.IDENTITIES)


@pytest.mark.parametrize("method", ["CommitSeed", "RevealSeed"])
def test_only_the_match_asks_the_dice_for_seeds(method: str) -> None:
    assert {c for c in pki.IDENTITIES if authz.allowed(f"/{authz.DICE}/{method}", c)} == {"match"}


def test_outcomes_are_the_match_s_and_a_granted_rules_process_s() -> None:
    """Rules may reach the draws at all only because the dice and the deck then ask for the
    match's grant (tests/unit/test_grants.py); no other identity may reach them."""
    assert {c for c in pki.IDENTITIES if authz.allowed(f"/{authz.DICE}/RollDice", c)} == {"match", "rules"}
    for method in ("ShufflePile", "DrawCards", "PutCards"):
        assert {c for c in pki.IDENTITIES if authz.allowed(f"/{authz.DECK}/{method}", c)} == {"match", "rules"}
    assert {c for c in pki.IDENTITIES if authz.allowed(f"/{authz.DECK}/ReleaseMatch", c)} == {"match"}


def test_unknown_methods_and_callers_are_refused() -> None:
    assert not authz.allowed(f"/{authz.DICE}/Nothing", "match")
    assert not authz.allowed(f"/{authz.DICE}/RollDice", "")
    with pytest.raises(PermissionDenied) as refused:
        authz.check(f"/{authz.DECK}/DrawCards", "gateway")
    assert "gateway" not in refused.value.message  # nothing about who may


class _Dice:
    async def RevealSeed(self, request: object, context: object) -> dice_service_pb2.RevealSeedResponse:
        return dice_service_pb2.RevealSeedResponse(seed="seed")


def test_in_process_calls_are_checked_as_the_calling_process() -> None:
    async def run() -> None:
        reveal = dice_service_pb2.RevealSeedRequest(match_id="m")
        assert (await DiceClient.in_process(_Dice(), "match").RevealSeed(reveal)).seed == "seed"
        with pytest.raises(PermissionDenied):
            await DiceClient.in_process(_Dice(), "deck").RevealSeed(reveal)

    asyncio.run(run())


class _Rules:
    async def DescribeGame(self, request: object, context: object) -> rules_service_pb2.SetupResponse:
        return rules_service_pb2.SetupResponse()


def test_an_in_process_reply_of_another_type_than_the_contract_says_is_refused() -> None:
    async def run() -> None:
        with pytest.raises(TypeError):
            await RulesClient.in_process(_Rules(), "gateway").DescribeGame(rules_service_pb2.DescribeGameRequest())

    asyncio.run(run())


def test_the_gateway_may_describe_games_but_not_set_them_up() -> None:
    assert authz.allowed(f"/{authz.RULES}/DescribeGame", "gateway")
    assert not authz.allowed(f"/{authz.RULES}/Setup", "gateway")


def test_no_deck_response_can_carry_a_pile_order_beyond_the_drawn_cards() -> None:
    service = deck_service_pb2.DESCRIPTOR.services_by_name["DeckService"]
    responses = {m.output_type.name: m.output_type for m in service.methods}
    with_lists = {name for name, message in responses.items() if any(f.is_repeated for f in message.fields)}
    # The cards asked for, at the offset the match keeps; and a batch, whose results are
    # only these same methods' own responses, serialized (services/common/batch.py).
    assert with_lists == {"DrawCardsResponse", "BatchResponse", "ExchangeResponse"}
    (exchanged,) = responses["ExchangeResponse"].fields  # each result: an id and a BatchResult
    assert [f.name for f in exchanged.message_type.fields] == ["id", "result"]
    assert exchanged.message_type.fields_by_name["result"].message_type.name == "BatchResult"
    (results,) = responses["BatchResponse"].fields
    assert [f.name for f in results.message_type.fields] == ["response", "error"]
    assert results.message_type.fields_by_name["response"].type == results.message_type.fields_by_name[
        "response"
    ].TYPE_BYTES


class _Matchmaker:
    async def WatchTicket(self, request: object, context: object) -> object:
        yield matchmaker_service_pb2.WatchTicketResponse(ticket_id="t")


def test_an_in_process_stream_is_checked_and_typed_like_a_call() -> None:
    async def run() -> None:
        watch = matchmaker_service_pb2.WatchTicketRequest(ticket_id="t")
        updates = [u async for u in MatchmakerClient.in_process(_Matchmaker(), "gateway").WatchTicket(watch)]
        assert [u.ticket_id for u in updates] == ["t"]
        with pytest.raises(PermissionDenied):
            [u async for u in MatchmakerClient.in_process(_Matchmaker(), "match").WatchTicket(watch)]

    asyncio.run(run())


def test_whole_positions_travel_only_from_the_rules_to_the_match_and_from_the_match_to_the_gateway() -> None:
    # A whole position holds every seat's secrets.
    assert {c for c in pki.IDENTITIES if authz.allowed(f"/{authz.RULES}/GetPosition", c)} == {"match"}
    assert {c for c in pki.IDENTITIES if authz.allowed(f"/{authz.MATCH}/GetPosition", c)} == {"gateway"}


@pytest.mark.parametrize("rpc", ["FormMatch", "FormMatches"])
def test_only_the_matchmaker_forms_started_matches_in_one_write(rpc: str) -> None:
    # A player's client reaches the match only through the gateway, which seats one
    # player at a time; forming a whole table for others is the matchmaker's alone.
    method = f"/{authz.MATCH}/{rpc}"
    assert authz.allowed(method, "matchmaker")
    assert not any(authz.allowed(method, caller) for caller in ("gateway", "dice", "deck", "rules", "match"))


def test_a_batch_is_open_to_exactly_those_who_may_call_something_it_carries() -> None:
    """Batch adds no caller: each call in it is checked on its own (services/common/batch.py)."""
    for client in (DiceClient, DeckClient, RulesClient, MatchClient):
        carried = set().union(*(authz.POLICY[f"/{client.service}/{name}"] for name in client.batched))
        assert authz.POLICY[f"/{client.service}/Batch"] == carried, client.service
