"""A generic reflection client plays through the gateway: it knows no generated
code, builds its descriptors from the gateway's server reflection (grpcio-
reflection's client-side descriptor database, as grpcurl does), reads a seat's
view as JSON and submits an action written as JSON with its @type.

Also: ListGames answers each game's option schema."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pool, json_format, message_factory
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
from tabletop.common.v1 import common_pb2
from tabletop.gateway.v1 import gateway_pb2 as gpb

from cli.api import Gateway, Seat
from contract.gateway import SERVICES
from deploy.stack import Stack
from services.common.table_options import TABLE_OPTIONS
from services.games import registry

pytestmark = pytest.mark.integration

JSON = {"preserving_proto_field_name": True}


class ReflectionClient:
    """Calls the gateway with message classes built from reflection only."""

    def __init__(self, addr: str) -> None:
        self.channel = grpc.insecure_channel(addr)
        self.database = ProtoReflectionDescriptorDatabase(self.channel)
        self.pool = descriptor_pool.DescriptorPool(self.database)
        self.services = [self.pool.FindServiceByName(service.full_name) for service in SERVICES]

    def close(self) -> None:
        self.channel.close()

    def call(self, method: str, body: str, metadata: Any = None) -> Any:
        """Call `method` with a request written as JSON (parsed with the reflected pool)."""
        (found,) = [service.methods_by_name[method] for service in self.services if method in service.methods_by_name]
        request = json_format.Parse(
            body, message_factory.GetMessageClass(found.input_type)(), descriptor_pool=self.pool
        )
        response_cls = message_factory.GetMessageClass(found.output_type)
        stub = self.channel.unary_unary(
            f"/{found.containing_service.full_name}/{method}",
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=response_cls.FromString,
        )
        return stub(request, metadata=metadata, timeout=10)

    def json(self, message: Any) -> dict[str, Any]:
        """`message` as JSON through the reflected pool: every Any resolved by reflection."""
        text = json_format.MessageToJson(message, descriptor_pool=self.pool, **JSON)
        return json.loads(text)  # type: ignore[no-any-return]


@pytest.fixture
def reflection(stack: Stack) -> Iterator[ReflectionClient]:
    client = ReflectionClient(stack.gateway_addr)
    yield client
    client.close()


async def started(gateway: Gateway, game: str, seats: int = 2) -> list[Seat]:
    match_id = (await gateway.create(game, seats)).match.match_id
    joined = [await gateway.join(match_id, f"p{i}-{uuid.uuid4().hex[:6]}") for i in range(seats)]
    await gateway.start(joined[0])
    return joined


async def seat_to_act(reflection: ReflectionClient, seats: list[Seat]) -> tuple[Seat, list[dict[str, Any]]]:
    """A seat with legal actions (after the match has resolved its setup chance), and those actions as JSON."""
    for _ in range(100):
        for seat in seats:
            reply = reflection.call("ListLegalActions", json.dumps({"match_id": seat.match_id}), seat.metadata)
            actions = reflection.json(reply).get("actions", [])
            if actions:
                return seat, actions
        await asyncio.sleep(0.1)
    raise AssertionError("no seat was asked to act")


def test_reflection_lists_the_gateway_and_resolves_every_payload(reflection: ReflectionClient) -> None:
    assert {service.full_name for service in reflection.services} <= set(reflection.database.get_services())
    # The games this stack hosts (the built-in ones and pig): another test may have made
    # more known to this test process, which the stack's gateway does not serve.
    for game in (g for g in registry.available() if g in (*registry.GAMES, "pig")):
        codec = registry.game(game).codec
        for message_cls in (codec.action_message, codec.event_message, codec.view_message):
            name = message_cls.DESCRIPTOR.full_name
            assert reflection.pool.FindMessageTypeByName(name).full_name == name
    for name in ("tabletop.match.v1.MatchCreated", "tabletop.match.v1.ChanceResolved", "tabletop.match.v1.MatchEnded"):
        assert reflection.pool.FindMessageTypeByName(name).full_name == name


async def test_a_reflection_client_reads_a_view_and_acts_in_json(
    gateway: Gateway, reflection: ReflectionClient
) -> None:
    seats = await started(gateway, "pig")
    seat, _ = await seat_to_act(reflection, seats)
    view = reflection.json(reflection.call("GetView", json.dumps({"match_id": seat.match_id}), seat.metadata))
    print(json.dumps(view, indent=2))
    assert view["view"]["@type"] == "type.googleapis.com/tabletop.testing.v1.View"
    assert view["view"]["scores"] == [0, 0] and view["view"]["my_bonus"] and view["seat"] == seat.seat

    action = json.dumps({
        "match_id": seat.match_id,
        "command_id": uuid.uuid4().hex,
        "action": {"@type": "type.googleapis.com/tabletop.testing.v1.Action", "roll": {}},
    })
    accepted = reflection.call("SubmitAction", action, seat.metadata)
    assert accepted.version > 0 and not accepted.duplicate

    entries = reflection.json(
        reflection.call("GetMatchLog", json.dumps({"match_id": seat.match_id}), seat.metadata)
    )["entries"]
    types = [entry["event"]["@type"].rsplit("/", 1)[-1] for entry in entries]
    assert types[0] == "tabletop.match.v1.MatchCreated" and "tabletop.testing.v1.Event" in types
    rolled = [e["event"]["die_rolled"] for e in entries if "die_rolled" in e["event"]]
    assert rolled and rolled[-1].get("seat", 0) == seat.seat  # proto3 JSON omits a 0


@pytest.mark.parametrize("game", registry.GAMES)
async def test_every_game_round_trips_views_and_actions_through_reflected_json(
    gateway: Gateway, reflection: ReflectionClient, game: str
) -> None:
    seats = await started(gateway, game)
    seat, actions = await seat_to_act(reflection, seats)
    view = reflection.json(reflection.call("GetView", json.dumps({"match_id": seat.match_id}), seat.metadata))
    assert view["view"]["@type"] == f"type.googleapis.com/tabletop.games.{game}.v1.View" and len(view["view"]) > 1
    # The first legal action, as a client would hold it in JSON, sent back as JSON.
    body = json.dumps({"match_id": seat.match_id, "command_id": uuid.uuid4().hex, "action": actions[0]})
    assert actions[0]["@type"] == f"type.googleapis.com/tabletop.games.{game}.v1.Action"
    accepted = reflection.call("SubmitAction", body, seat.metadata)
    assert accepted.version > 0 and not accepted.duplicate
    # Every log entry resolves: platform events, game events and their redactions.
    for who in (seat, None):
        entries = reflection.json(reflection.call(
            "GetMatchLog", json.dumps({"match_id": seat.match_id}), who.metadata if who else None
        ))["entries"]
        assert all(len(entry["event"]) > 1 or entry["event"]["@type"].endswith("MatchStarted") for entry in entries)


async def test_list_games_answers_each_games_options(gateway: Gateway, reflection: ReflectionClient) -> None:
    games = {info.game: info for info in (await gateway.stub.ListGames(gpb.ListGamesRequest())).games}
    assert set(registry.GAMES) <= set(games)
    for name in registry.GAMES:
        # The game's own options, then the table options every match may set (turn clocks).
        declared = (*registry.game(name).engine.options, *TABLE_OPTIONS)
        advertised = games[name].options
        assert [o.name for o in advertised] == [s.name for s in declared]
        assert [o.default for o in advertised] == [s.default for s in declared]
        assert all(o.description for o in advertised)
    by_name = {o.name: o for o in games["el_dorado"].options}
    assert by_name["course"].type == common_pb2.OPTION_TYPE_CHOICE
    assert "hills_of_gold" in by_name["course"].allowed_values
    assert (by_name["max_rounds"].min, by_name["max_rounds"].max) == (1, 1000)
    assert list({o.name: o for o in games["la_isla"].options}["deck"].allowed_values) == ["beginner", "full"]
    # The same answer as JSON, the way a reflection (or Connect JSON) client reads it.
    listed = reflection.json(reflection.call("ListGames", "{}"))
    la_isla = next(g for g in listed["games"] if g["game"] == "la_isla")
    assert la_isla["options"][0]["type"] == "OPTION_TYPE_CHOICE" and la_isla["options"][0]["default"] == "beginner"


async def test_an_option_out_of_its_range_is_refused_naming_it(gateway: Gateway) -> None:
    for config, option in (({"max_rounds": "9" * 60}, "max_rounds"), ({"cavez": "true"}, "cavez")):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await gateway.create("el_dorado", 2, config)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert option in (refused.value.details() or "")
