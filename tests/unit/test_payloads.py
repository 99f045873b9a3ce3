"""contract/payloads.py: every payload an Any carries resolves in its JSON mapping."""

from __future__ import annotations

import json

import pytest
from google.protobuf import any_pb2, json_format
from tabletop.gateway.v1 import gateway_pb2 as gpb
from tabletop.match.v1 import events_pb2

from contract import payloads
from contract.payloads import PLATFORM_EVENTS
from services.dice.playout import play
from services.games import registry


def packed(message: object) -> any_pb2.Any:
    wrapped = any_pb2.Any()
    wrapped.Pack(message)  # type: ignore[arg-type]
    return wrapped


def test_payload_types_come_from_the_registry_and_the_platform() -> None:
    names = payloads.reflected_names(registry.GAMES)
    for game in registry.GAMES:
        codec = registry.game(game).codec
        for message_cls in (codec.action_message, codec.event_message, codec.view_message):
            assert message_cls.DESCRIPTOR.full_name in names
    assert set(PLATFORM_EVENTS) <= set(names)
    assert len(names) == 3 * len(registry.GAMES) + len(PLATFORM_EVENTS)


def test_the_pool_holds_payloads_only() -> None:
    pool = payloads.descriptor_pool(registry.GAMES)
    for name in payloads.reflected_names(registry.GAMES):
        assert pool.FindMessageTypeByName(name).full_name == name
    with pytest.raises(KeyError):
        pool.FindMessageTypeByName("tabletop.rules.v1.EngineState")
    bad = '{"match_id": "m", "action": {"@type": "type.googleapis.com/tabletop.rules.v1.EngineState"}}'
    with pytest.raises(json_format.ParseError):
        payloads.parse_json(bad, gpb.SubmitActionRequest(), registry.GAMES)


@pytest.mark.parametrize("game", registry.GAMES)
def test_views_actions_and_events_of_every_game_round_trip_through_json(game: str) -> None:
    entry = registry.game(game)
    codec = entry.codec
    # A position some way in where a seat (not chance) is asked to act.
    played = next(p for n in range(60, 100) if (p := play(entry.engine, {}, 2, seed=3, max_steps=n)).state
                  and entry.engine.to_move(p.state).seats)
    seat = entry.engine.to_move(played.state).seats[0]
    legal = entry.engine.legal_actions(played.state, seat)
    view = gpb.GetViewResponse(view=packed(codec.encode_view(entry.engine.view(played.state, seat))))
    listed = gpb.ListLegalActionsResponse(version=7, actions=[packed(codec.encode_action(a)) for a in legal])
    log = gpb.GetMatchLogResponse(entries=[
        gpb.LogEntry(version=i, event=packed(codec.encode_event(e))) for i, e in enumerate(played.events)
    ] + [gpb.LogEntry(event=packed(events_pb2.MatchCreated(game=game, seat_count=2)))])
    for message in (view, listed, log):
        text = payloads.to_json(message, registry.GAMES)
        assert f"tabletop.games.{game}.v1." in text
        again = payloads.parse_json(text, type(message)(), registry.GAMES)
        # Any holds bytes, whose map order may differ: compare what they decode to.
        assert json.loads(payloads.to_json(again, registry.GAMES)) == json.loads(text)
    decoded = codec.view_message()
    assert payloads.parse_json(payloads.to_json(view, registry.GAMES), gpb.GetViewResponse(),
                               registry.GAMES).view.Unpack(decoded)
    assert codec.decode_view(decoded) == entry.engine.view(played.state, seat)
    as_dict = payloads.to_dict(view, registry.GAMES, preserving_proto_field_name=True)
    assert as_dict["view"]["@type"] == payloads.type_url(codec.view_message.DESCRIPTOR.full_name)
    submitted = payloads.parse_json(
        {"match_id": "m", "action": payloads.to_dict(packed(codec.encode_action(legal[0])), registry.GAMES)},
        gpb.SubmitActionRequest(),
        registry.GAMES,
    )
    assert codec.decode_action(_unpacked(submitted, codec)) == legal[0]


def _unpacked(request: gpb.SubmitActionRequest, codec: object) -> object:
    message = codec.action_message()  # type: ignore[attr-defined]
    assert request.action.Unpack(message)
    return message
