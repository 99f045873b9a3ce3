"""The command-line client in words: refusals as a sentence and a next step, `queue --json`
telling each status as it comes, action labels and views named through a game's words."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import grpc
import pytest
from tabletop.gateway.v1 import gateway_pb2 as pb
from tabletop.matchmaker.v1 import matchmaker_service_pb2 as mmpb

from cli import main as cli
from cli import render, say
from contract.words import from_message, game_words, to_message


class _Refusal(grpc.aio.AioRpcError):
    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details)


def test_a_gateway_that_is_down_names_its_address_and_make_run() -> None:
    refused = _Refusal(grpc.StatusCode.UNAVAILABLE, "failed to connect to all addresses; last error: UNKNOWN")
    what, step = say.explain(refused, "127.0.0.1:50051")
    assert what == "cannot reach the gateway at 127.0.0.1:50051 - is `make run` running?"
    assert "TABLETOP_GATEWAY" in step


def test_a_service_behind_the_gateway_that_is_down_is_the_gateways_word() -> None:
    what, step = say.explain(_Refusal(grpc.StatusCode.UNAVAILABLE, "the matchmaker service is unavailable"), "h:1")
    assert (what, step) == ("the matchmaker service is unavailable", "")


def test_a_refused_token_says_to_take_the_seat_again() -> None:
    what, step = say.explain(_Refusal(grpc.StatusCode.UNAUTHENTICATED, "bad seat token"), "h:1")
    assert "bad seat token" in what and "tabletop join" in step


@pytest.mark.parametrize("code", [grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT,
                                  grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.FAILED_PRECONDITION])
def test_every_refusal_has_a_next_step(code: grpc.StatusCode) -> None:
    what, step = say.explain(_Refusal(code, "no match m1"), "h:1")
    assert what == "no match m1" and step


def test_queue_json_prints_a_line_at_once_and_on_every_change(capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[str] = []

    async def work(told: Callable[[pb.QueueResponse], None]) -> str:
        told(pb.QueueResponse(ticket_id="t1", status=mmpb.TICKET_STATUS_WAITING))
        seen.append(capsys.readouterr().out)  # printed before the wait is over
        told(pb.QueueResponse(ticket_id="t1", status=mmpb.TICKET_STATUS_ASSIGNED))
        return "done"

    assert asyncio.run(cli._waiting("a table", True, work)) == "done"
    first = json.loads(seen[0])
    assert first == {"ticket_id": "t1", "status": "waiting", "already_queued": False}
    assert json.loads(capsys.readouterr().out)["status"] == "assigned"


def test_the_served_words_survive_the_wire() -> None:
    words = game_words("el_dorado")
    back = from_message(pb.GameWords.FromString(to_message(words).SerializeToString()))
    assert back.tables == words.tables and back.actions == words.actions and back.events == words.events
    assert back.legend == words.legend


def test_labels_and_views_name_every_id() -> None:
    said = render.Said.of(game_words("el_dorado"), {"seats": [{"seat": 1, "display_name": "ben"}]})
    assert said.action("type.googleapis.com/tabletop.games.el_dorado.v1.Action",
                       {"buy_card": {"card": "cartographer"}}) == "Buy Cartographer"
    assert said.event("tabletop.games.el_dorado.v1.Event",
                      {"card_spent": {"seat": 1, "card": "traveler", "halves": 2, "removed": False}}
                      ) == "ben (seat 1) put Traveler towards a purchase (1 coin)"
    assert said.event("tabletop.match.v1.UndoPoint", {"seat": 1, "events": 1}) == ""
    lines = render.readable({"phase": "PHASE_PLAY", "hand": ["cartographer", "transmitter"],
                             "coins_halves": 3, "current": 1}, said)
    assert lines == ["phase: playing cards", "hand: Cartographer, Transmitter", "coins halves: 1½ coins",
                     "current: ben (seat 1)"]
