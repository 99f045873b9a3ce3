"""The one audience enum and the one entitlement rule."""

from __future__ import annotations

import pytest
from tabletop.common.v1 import common_pb2

from services.common.audience import Audience, entitled, from_wire, to_wire
from services.games.common.engine import Visibility

PUBLIC, SEAT, SERVER = Audience.PUBLIC, Audience.SEAT, Audience.SERVER


def test_the_engine_enum_is_numbered_as_the_contract():
    assert {a.name: int(a) for a in Audience} == {
        name.removeprefix("AUDIENCE_"): number
        for name, number in common_pb2.Audience.items()
        if number != common_pb2.AUDIENCE_UNSPECIFIED
    }


def test_a_contract_value_becomes_the_enum_and_an_unknown_one_stays_on_the_servers():
    assert from_wire(common_pb2.AUDIENCE_PUBLIC) is PUBLIC
    assert from_wire(common_pb2.AUDIENCE_SEAT) is SEAT
    assert from_wire(common_pb2.AUDIENCE_SERVER) is SERVER
    assert from_wire(common_pb2.AUDIENCE_UNSPECIFIED) is SERVER
    assert from_wire(42) is SERVER


# audience, event seat, viewer (None: spectator), finished -> entitled
CASES = [
    (PUBLIC, -1, None, False, True),
    (PUBLIC, -1, 0, False, True),
    (PUBLIC, -1, 1, True, True),
    (SEAT, 1, 1, False, True),
    (SEAT, 1, 0, False, False),
    (SEAT, 1, None, False, False),
    (SEAT, 0, None, False, False),
    (SEAT, 1, 0, True, True),
    (SEAT, 1, None, True, True),
    (SERVER, -1, None, False, False),
    (SERVER, -1, 0, False, False),
    (SERVER, 0, 0, False, False),
    (SERVER, -1, None, True, False),
    (SERVER, 0, 0, True, False),
]


@pytest.mark.parametrize(("audience", "event_seat", "viewer", "finished", "expected"), CASES)
def test_entitled(audience, event_seat, viewer, finished, expected):
    assert entitled(audience, event_seat, viewer, finished) is expected


@pytest.mark.parametrize(("audience", "event_seat", "viewer", "finished", "expected"), CASES)
def test_an_engine_admits_a_viewer_exactly_when_the_platform_entitles_them_during_play(
    audience, event_seat, viewer, finished, expected
):
    visibility = Visibility(audience, event_seat if audience is SEAT else None)
    assert visibility.admits(viewer) is entitled(audience, event_seat, viewer, finished=False)


def test_the_contract_value_of_each_audience_is_its_own_number():
    assert [to_wire(a) for a in Audience] == [
        common_pb2.AUDIENCE_PUBLIC, common_pb2.AUDIENCE_SEAT, common_pb2.AUDIENCE_SERVER
    ]


def test_the_gateway_shows_a_seat_event_to_its_seat_the_redacted_form_to_others_and_all_after_the_end():
    from gateway.views import entries_for, entry_for
    from services.common.store.event_store import StoredEvent

    dealt = StoredEvent(4, "g.Dealt", b"cards", SEAT, 1, "g.DealtHidden", b"")
    secret = StoredEvent(5, "g.Secret", b"s", SERVER)

    own, other = entry_for(dealt, 1, False), entry_for(dealt, 0, False)
    assert own is not None and (own.type, own.redacted, own.event.value) == ("g.Dealt", False, b"cards")
    assert other is not None and (other.type, other.redacted) == ("g.DealtHidden", True)
    assert other.visibility.audience == common_pb2.AUDIENCE_SEAT and other.visibility.seat == 1
    after = entry_for(dealt, None, True)
    assert after is not None and not after.redacted
    assert entries_for([secret], 0, True) == []
