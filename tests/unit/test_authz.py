"""The per-method policy: every internal method has callers, the call graph is the real one."""

from __future__ import annotations

import ast
import asyncio
import pathlib
from typing import Any

import pytest
from tabletop.deck.v1 import deck_service_pb2
from tabletop.dice.v1 import dice_service_pb2
from tabletop.match.v1 import match_service_pb2
from tabletop.matchmaker.v1 import matchmaker_service_pb2
from tabletop.rules.v1 import rules_service_pb2

from services.common.errors import PermissionDenied
from services.common.rpc.adapters import DeckClient, DiceClient, MatchClient, MatchmakerClient, RulesClient
from services.common.security import authz, pki
from services.common.security.tls import KnownPeer
from services.match import servicer
from tests.unit.test_match_app import FLIP, Table

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
    match's grant (tests/unit/test_grants.py); no other identity may reach them. Rolls and
    roll windows are the match's alone: a rules process rolls from the slice it is handed."""
    for method in ("RollDice", "OpenWindow"):
        assert {c for c in pki.IDENTITIES if authz.allowed(f"/{authz.DICE}/{method}", c)} == {"match"}
    assert {c for c in pki.IDENTITIES if authz.allowed(f"/{authz.DICE}/Permute", c)} == {"match", "deck", "rules"}
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
    # only these same methods' own responses, serialized (services/common/rpc/batch.py).
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
    """Batch adds no caller: each call in it is checked on its own (services/common/rpc/batch.py)."""
    for client in (DiceClient, DeckClient, RulesClient, MatchClient):
        carried = set().union(*(authz.POLICY[f"/{client.service}/{name}"] for name in client.batched))
        assert authz.POLICY[f"/{client.service}/Batch"] == carried, client.service


# ------------------------------------------------------------ the table and the roles it holds


def test_a_row_naming_no_platform_identity_fails_at_import() -> None:
    with pytest.raises(ValueError):
        authz._rows({authz.DICE: {"RollDice": "match rulez"}})
    with pytest.raises(ValueError):
        authz._rows({authz.DICE: {"RollDice": ""}})


def _called_by_the_matchmaker() -> set[str]:
    """The match service methods the matchmaker's own code calls (`<port>.<Rpc>(...)`)."""
    names = set(match_service_pb2.DESCRIPTOR.services_by_name["MatchService"].methods_by_name)
    called = set()
    for source in pathlib.Path("services/matchmaker").rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names:
                called.add(node.func.attr)
    return called


def test_the_matchmaker_may_call_on_the_match_exactly_what_its_code_calls() -> None:
    """The table is the real call graph: no right the matchmaker does not use (Batch and
    Exchange carry its calls, each checked on its own)."""
    granted = {m.rsplit("/", 1)[1] for m in authz.POLICY if m.startswith(f"/{authz.MATCH}/")
               and authz.allowed(m, "matchmaker")}
    assert granted - {"Batch", "Exchange"} == _called_by_the_matchmaker()


@pytest.mark.parametrize("rpc", ["JoinMatch", "LeaveMatch", "StartMatch", "UndoActions", "GetPosition", "ListMatches"])
def test_the_matchmaker_seats_no_one_in_a_lobby_and_acts_for_no_person(rpc: str) -> None:
    # It seats players only by forming a new match (FormMatch), which starts it.
    assert not authz.allowed(f"/{authz.MATCH}/{rpc}", "matchmaker")


def test_every_seat_call_the_matchmaker_makes_is_held_to_its_bots_seats() -> None:
    seat_calls = {"SubmitAction", "ListLegalActions", "GetView"}
    assert set(authz.BOT_SEATS) == {f"/{authz.MATCH}/{rpc}" for rpc in seat_calls}
    for method, callers in authz.BOT_SEATS.items():
        assert callers == {"matchmaker"} and callers <= authz.POLICY[method]
        assert not authz.any_seat(method, "matchmaker") and authz.any_seat(method, "gateway")
    # The match service knows the refusal of each (services/match/servicer.py).
    assert {m.rsplit("/", 1)[1] for m in authz.BOT_SEATS} <= set(servicer._SEAT_CALLS)


def test_a_caller_not_in_a_row_is_trusted_with_no_seat() -> None:
    assert not authz.any_seat(f"/{authz.MATCH}/SubmitAction", "dice")
    assert not authz.any_seat(f"/{authz.MATCH}/SubmitAction", "")
    assert not authz.any_seat(f"/{authz.MATCH}/Nothing", "gateway")


# ------------------------------------------------------------ the match service holds seat calls to the table


def _seat_call(rpc: str, seat: int) -> Any:
    """`rpc` of the coin table's match for `seat`, as a bot would ask it."""
    return {
        "SubmitAction": lambda: match_service_pb2.SubmitActionRequest(
            match_id="m1", seat=seat, action=FLIP, command_id=f"m1:bot:{seat}"),
        "ListLegalActions": lambda: match_service_pb2.ListLegalActionsRequest(match_id="m1", seat=seat),
        "GetView": lambda: match_service_pb2.GetViewRequest(match_id="m1", viewer=seat),
        "UndoActions": lambda: match_service_pb2.UndoActionsRequest(match_id="m1", seat=seat, command_id="u"),
        "LeaveMatch": lambda: match_service_pb2.LeaveMatchRequest(match_id="m1", seat=seat, command_id="l"),
        "StartMatch": lambda: match_service_pb2.StartMatchRequest(match_id="m1", seat=seat, command_id="s"),
    }[rpc]()


async def _coin_table(*players: str) -> tuple[Table, servicer.MatchServicer]:
    """A started coin match (seat 0 is to move) with `players` in seat order."""
    table = Table()
    app = table.replica()
    await app.create("coin", {}, len(players), match_id="m1")
    for player in players:
        await app.join("m1", player, None, display_name=player)
    await app.start("m1")
    return table, servicer.MatchServicer(app)


# Callers a seat call is held to bot seats for: the matchmaker (by its row), and any caller
# no row trusts with a seat, were it to get past the method check.
HELD = [KnownPeer("matchmaker"), KnownPeer("dice"), None]


@pytest.mark.parametrize("rpc", sorted(servicer._SEAT_CALLS))
@pytest.mark.parametrize("context", HELD, ids=["matchmaker", "dice", "no-caller"])
async def test_a_person_s_seat_is_refused_to_a_caller_held_to_bot_seats(rpc: str, context: Any) -> None:
    table, match = await _coin_table("p-ana", "bot-7")
    app = table.replica()
    before = (await app.current("m1")).version
    asked = list(table.rules.asked)
    with pytest.raises(PermissionDenied) as refused:
        await getattr(match, rpc)(_seat_call(rpc, 0), context)
    assert refused.value.reason == f"{servicer._SEAT_CALLS[rpc]}.bot_seat_only"
    assert "p-ana" not in refused.value.message
    # Nothing written, nothing of the seat's computed.
    assert (await app.current("m1")).version == before and table.rules.asked == asked


@pytest.mark.parametrize("rpc", sorted(servicer._SEAT_CALLS))
async def test_no_seat_and_no_such_seat_are_not_a_bot_s(rpc: str) -> None:
    _, match = await _coin_table("bot-6", "bot-7")
    with pytest.raises(PermissionDenied) as refused:
        await getattr(match, rpc)(_seat_call(rpc, 5), KnownPeer("matchmaker"))
    assert refused.value.reason == f"{servicer._SEAT_CALLS[rpc]}.bot_seat_only"
    if rpc in ("GetView", "StartMatch"):  # a spectator's view, a start in nobody's name
        request = _seat_call(rpc, 0)
        request.ClearField("viewer" if rpc == "GetView" else "seat")
        with pytest.raises(PermissionDenied):
            await getattr(match, rpc)(request, KnownPeer("matchmaker"))


async def test_the_matchmaker_plays_its_own_bot_seat() -> None:
    _, match = await _coin_table("bot-6", "p-ana")
    bot = KnownPeer("matchmaker")
    legal = await match.ListLegalActions(_seat_call("ListLegalActions", 0), bot)
    assert list(legal.actions) == [FLIP]
    seen = await match.GetView(_seat_call("GetView", 0), bot)
    assert seen.view.value == b"ready@0"
    done = await match.SubmitAction(_seat_call("SubmitAction", 0), bot)
    assert done.version > legal.version and not done.duplicate
    # A retry of the bot's command answers the first time (its holder is the bot, every time).
    assert (await match.SubmitAction(_seat_call("SubmitAction", 0), bot)).duplicate
    # A past view is not a bot's to ask, even its own seat's.
    past = _seat_call("GetView", 0)
    past.at_version = 1
    with pytest.raises(PermissionDenied) as refused:
        await match.GetView(past, bot)
    assert refused.value.reason == "view.bot_seat_only"


async def test_the_gateway_acts_for_the_holder_its_token_names_on_any_seat() -> None:
    _, match = await _coin_table("p-ana", "bot-7")
    request = _seat_call("SubmitAction", 0)
    request.holder.CopyFrom(match_service_pb2.SeatHolder(player_id="p-ben", tenure=1))
    with pytest.raises(PermissionDenied) as refused:
        await match.SubmitAction(request, KnownPeer("gateway"))
    assert refused.value.reason == "auth.seat_changed"
    request.holder.player_id = "p-ana"
    assert not (await match.SubmitAction(request, KnownPeer("gateway"))).duplicate


async def test_a_bot_is_seated_only_by_forming_a_match() -> None:
    table = Table()
    app = table.replica()
    await app.create("coin", {}, 2, match_id="m1")
    joining = match_service_pb2.JoinMatchRequest(match_id="m1", player_id="bot-1", command_id="j")
    with pytest.raises(PermissionDenied) as refused:
        await servicer.MatchServicer(app).JoinMatch(joining, KnownPeer("gateway"))
    assert refused.value.reason == "join.bot_player"
    assert (await app.current("m1")).players == ("", "")
