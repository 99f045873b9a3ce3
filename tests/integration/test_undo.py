"""Undo through the real gateway: a seat takes back its last action and sees the
position it had, every viewer reads the undo without the state it restored,
another seat cannot take it back, the CLI offers and performs it, and a move that
revealed another seat's secret (La Isla's last assignment) cannot be taken back."""

from __future__ import annotations

import pathlib

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2
from tabletop.games.la_isla.v1 import events_pb2 as isla_events
from tabletop.match.v1 import events_pb2 as ev

from cli.api import Gateway, Seat
from deploy.stack import Stack
from tests.integration.conftest import PIG
from tests.integration.test_cli import tabletop
from tests.integration.test_platform import HOLD, ROLL, started_pig

pytestmark = pytest.mark.integration


async def until_hold_is_legal(gateway: Gateway, seats: list[Seat]) -> Seat:
    """Roll with whoever is asked until a seat may hold; that seat."""
    for _ in range(200):
        summary = (await gateway.view(seats[0].match_id)).match
        mover = seats[summary.to_move[0]]
        legal = list((await gateway.legal_actions(mover)).actions)
        if HOLD in legal:
            return mover
        await gateway.submit(mover, ROLL)
    raise AssertionError("nobody could hold in 200 rolls")


async def test_a_seat_takes_back_its_hold_and_every_viewer_sees_the_undo(stack: Stack):
    async with Gateway(stack.gateway_addr) as gateway:
        seats = await started_pig(gateway)
        match_id = seats[0].match_id
        mover = await until_hold_is_legal(gateway, seats)
        other = seats[1 - mover.seat]
        before = await gateway.view(match_id, mover)
        held = await gateway.submit(mover, HOLD)  # no chance: Hold passes the turn
        assert (held.match.undoable, held.match.undo_seat) == (1, mover.seat)

        with pytest.raises(grpc.aio.AioRpcError) as not_theirs:
            await gateway.undo(other)
        assert not_theirs.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "not seat" in (not_theirs.value.details() or "")

        undone = await gateway.undo(mover)
        assert undone.version == held.version + 1 and list(undone.match.to_move) == [mover.seat]
        after = await gateway.view(match_id, mover)
        assert after.view == before.view and after.match.undoable == 0
        assert HOLD in list((await gateway.legal_actions(mover)).actions)

        for viewer in (None, other, mover):
            entries = await gateway.log(match_id, viewer)
            (entry,) = [e for e in entries if e.type == ev.ActionsUndone.DESCRIPTOR.full_name]
            seen = ev.ActionsUndone.FromString(entry.event.value)
            assert entry.redacted and (seen.seat, seen.count, seen.state) == (mover.seat, 1, b"")

        with pytest.raises(grpc.aio.AioRpcError) as nothing:
            await gateway.undo(mover)
        assert nothing.value.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_the_cli_says_when_an_undo_is_available_and_performs_it(
    stack: Stack, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("TABLETOP_EXTRA_GAMES", PIG["TABLETOP_EXTRA_GAMES"])  # the CLI renders Pig's actions
    gateway = ("--gateway", stack.gateway_addr)
    match_id = tabletop(tmp_path, "create", "pig", "--players", "2", "--name", "ana", *gateway).stdout.strip()
    for name in ("ana", "ben"):
        assert tabletop(tmp_path, "join", match_id, "--name", name, *gateway).returncode == 0
    assert tabletop(tmp_path, "start", match_id, "--seat", "0", *gateway).returncode == 0
    for _ in range(200):
        mover = next(s for s in (0, 1) if tabletop(tmp_path, "actions", match_id, "--seat", str(s), *gateway).stdout)
        listed = tabletop(tmp_path, "actions", match_id, "--seat", str(mover), *gateway).stdout.splitlines()
        hold = next((line.split(":")[0] for line in listed if "hold" in line), None)
        if hold is not None:
            break
        roll = next(line.split(":")[0] for line in listed if "roll" in line)
        assert tabletop(tmp_path, "act", match_id, roll, "--seat", str(mover), *gateway).returncode == 0
    assert tabletop(tmp_path, "act", match_id, hold, "--seat", str(mover), *gateway).returncode == 0
    offered = tabletop(tmp_path, "actions", match_id, "--seat", str(mover), *gateway)
    assert "undo available (1)" in offered.stderr
    done = tabletop(tmp_path, "undo", match_id, "--seat", str(mover), *gateway)
    assert done.returncode == 0 and "took back 1 action(s)" in done.stdout, done.stderr
    again = tabletop(tmp_path, "undo", match_id, "--seat", str(mover), *gateway)
    assert again.returncode == 1 and "FAILED_PRECONDITION" in again.stderr + again.stdout


async def refusal_reason(call: object) -> tuple[grpc.StatusCode, str]:
    """The status code and ErrorInfo reason of a call that must fail."""
    try:
        await call  # type: ignore[misc]
    except grpc.aio.AioRpcError as error:
        return error.code(), _reason(error)
    raise AssertionError("the call succeeded")


def _reason(error: grpc.aio.AioRpcError) -> str:
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return info.reason
    return ""


async def test_the_last_secret_assignment_reveals_every_seats_cards_and_cannot_be_taken_back(stack: Stack):
    # Issue 27 item 1: seat 1 assigned last, the same batch revealed seat 0's cards in
    # public events, and seat 1 could undo and assign again knowing them.
    async with Gateway(stack.gateway_addr) as gateway:
        match_id = (await gateway.create("la_isla", 2)).match.match_id
        seats = [await gateway.join(match_id, f"isla-{i}") for i in range(2)]
        await gateway.start(seats[0])
        assert sorted((await gateway.view(match_id)).match.to_move) == [0, 1]  # the secret assignment
        first = (await gateway.legal_actions(seats[0])).actions[0]
        assigned = await gateway.submit(seats[0], first)
        assert (assigned.match.undoable, assigned.match.undo_seat) == (1, 0)  # its own secret, nothing shown

        last = (await gateway.legal_actions(seats[1])).actions[0]
        revealed = await gateway.submit(seats[1], last)
        spectators_log = await gateway.log(match_id)
        shown = [isla_events.Event.FromString(e.event.value) for e in spectators_log[assigned.version :]]
        (inserted,) = [e.functions_inserted for e in shown if e.WhichOneof("kind") == "functions_inserted"]
        assert {i.seat for i in inserted.insertions} == {0, 1}, "every seat's A card, in public"
        # The offer counts the seat's undo points; whether the move disclosed anything is
        # judged when the seat asks (the counterfactual is off the move's path).
        assert (revealed.match.undoable, revealed.match.undo_seat) == (1, 1)
        code, reason = await refusal_reason(gateway.undo(seats[1]))
        assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "undo.nothing_to_undo")
        assert (await gateway.view(match_id)).match.version == revealed.version  # nothing appended
