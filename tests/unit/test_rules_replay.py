"""The rules' Replay folds a game's events sent either way (each in an Any, or as
bytes under the one type name) to the same state, and refuses what is not the game's."""

from __future__ import annotations

import pytest
from google.protobuf import any_pb2
from tabletop.rules.v1 import rules_service_pb2 as rpb

from services.common.errors import InvalidArgument
from services.dice.playout import play
from services.games import registry
from services.rules.app import EngineHost
from services.rules.servicer import RulesServicer

STEPS = 120


def _played(game: str) -> tuple[EngineHost, rpb.EngineState, list[bytes], bytes]:
    """A seeded playout of `game`: its first state, every event's bytes and the last state."""
    host = EngineHost(registry.game(game))
    sample = host.entry.declaration.samples[0]
    played = play(host.engine, dict(sample.config), sample.seats, sample.seed, max_steps=STEPS)
    payloads = [host.codec.encode_event(e).SerializeToString() for e in played.events]
    return host, rpb.EngineState(game=game, data=host.encode(played.initial)), payloads, host.encode(played.state)


@pytest.mark.parametrize("game", registry.available())
async def test_events_as_bytes_fold_as_events_in_anys(game: str) -> None:
    host, first, payloads, last = _played(game)
    servicer = RulesServicer(host)
    name = host.codec.event_message.DESCRIPTOR.full_name
    anys = [any_pb2.Any(type_url=f"type.googleapis.com/{name}", value=p) for p in payloads]
    by_any = await servicer.Replay(rpb.ReplayRequest(state=first, events=anys), None)
    by_bytes = await servicer.Replay(rpb.ReplayRequest(state=first, event_type=name, event_data=payloads), None)
    assert len(set(payloads)) < len(payloads), "the playout repeats some event (decoded once per call)"
    assert by_bytes == by_any
    assert by_bytes.state.data == last


@pytest.mark.parametrize(
    ("event_type", "payload", "reason"),
    [
        ("tabletop.match.v1.MatchStarted", None, "payload_type"),
        ("", None, "payload_type"),
        (None, b"\xff\xff", "malformed_payload"),
    ],
)
async def test_events_of_another_type_or_undecodable_are_refused(event_type, payload, reason) -> None:
    game = registry.available()[0]
    host, first, payloads, _ = _played(game)
    name = host.codec.event_message.DESCRIPTOR.full_name
    request = rpb.ReplayRequest(
        state=first,
        event_type=name if event_type is None else event_type,
        event_data=[*payloads[:3], payload or payloads[3]],
    )
    with pytest.raises(InvalidArgument) as refused:
        await RulesServicer(host).Replay(request, None)
    assert refused.value.reason == reason
