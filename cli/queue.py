"""`tabletop queue`: ask the gateway for a match and wait for the assignment.

A ticket lives while its player waits. Interrupted (Ctrl-C, SIGTERM, SIGHUP),
the command withdraws its ticket (CancelTicket) before it exits; killed
outright (SIGKILL), its stream's end is seen by the gateway, and the ticket is
withdrawn there (services/matchmaker/app.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import uuid
from collections.abc import Callable, Iterator
from typing import TypedDict

import grpc
from tabletop.gateway.v1 import gateway_pb2 as pb
from tabletop.matchmaker.v1 import matchmaker_service_pb2 as mmpb

from cli.api import CHANNEL_OPTIONS, bearer
from contract.gateway import GatewayStub

RECONNECTS = 5
Metadata = tuple[tuple[str, str], ...]


# Signals that stop the wait like Ctrl-C does: the ticket is withdrawn, then the command exits.
STOPPING = (signal.SIGTERM, signal.SIGHUP)


class Interrupted(Exception):
    """The wait was stopped by a signal (SIGTERM, SIGHUP) and the ticket withdrawn; the command
    exits as a process ended by that signal would (128 + its number)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.exit_code = 128 + signum


class Queued(TypedDict):
    """A seat the matchmaker found: the ticket, the match, the seat and its token, the player."""

    ticket_id: str
    match_id: str
    seat: int
    token: str
    player_id: str


async def queue(
    gateway_addr: str,
    game: str,
    players_min: int,
    players_max: int,
    options: dict[str, str],
    device_id: str,
    display_name: str = "",
    told: Callable[[pb.QueueResponse], None] | None = None,
) -> Queued:
    """Sign in as the guest `device_id`, queue and wait, over one Queue stream; returns
    {"ticket_id", "match_id", "seat", "token", "player_id"}.

    `told` hears the stream's first message (the ticket, and whether it was queued before)
    as soon as it comes, then every message whose status differs from the one before. A
    stream the gateway drops is reopened with the same command id, which watches the same
    ticket. The ticket is withdrawn if the wait is interrupted
    (Ctrl-C; SIGTERM or SIGHUP raise `Interrupted` once it is withdrawn) before an assignment.
    """
    async with grpc.aio.insecure_channel(gateway_addr, options=CHANNEL_OPTIONS) as channel:
        stub = GatewayStub(channel)
        signed = await stub.Authenticate(
            pb.AuthenticateRequest(device_id=device_id, display_name=display_name), wait_for_ready=True
        )
        session = bearer(signed.session_token)
        request = pb.QueueRequest(
            game=game, players_min=players_min, players_max=players_max, options=options, command_id=uuid.uuid4().hex
        )
        heard: list[pb.QueueResponse] = []  # the stream's first message, once it has come
        stopped: list[int] = []
        try:
            with _stopping_on_signals(stopped):
                assignment = await _wait(stub, request, session, heard, told)
        except BaseException as interrupted:
            # Before the first message the ticket's id is unknown: the gateway withdraws it
            # when the stream closes.
            if heard:
                await _withdraw(stub, heard[0].ticket_id, session)
            if stopped and isinstance(interrupted, asyncio.CancelledError):
                _uncancel()
                raise Interrupted(stopped[0]) from None
            raise
        ticket = heard[0]
        return {
            "ticket_id": ticket.ticket_id,
            "match_id": assignment.match_id,
            "seat": assignment.seat,
            "token": assignment.token,
            "player_id": signed.player_id,
        }


class TicketExpired(RuntimeError):
    """The matchmaker gave up on the ticket (its time-to-live passed)."""


async def _wait(
    stub: GatewayStub,
    request: pb.QueueRequest,
    session: Metadata,
    heard: list[pb.QueueResponse],
    told: Callable[[pb.QueueResponse], None] | None,
) -> mmpb.Assignment:
    """The ticket's assignment, reopening the stream while the gateway is away; the stream's
    first message goes to `heard`, and `told` hears it and every later change of status."""
    last: list[int] = []  # the status last heard
    for attempt in range(RECONNECTS):
        try:
            async for update in stub.Queue(request, metadata=session, wait_for_ready=True):
                changed = not heard or update.status != last[0]
                if not heard:
                    heard.append(update)
                last[:] = [update.status]
                if changed and told is not None:
                    told(update)
                if update.status == mmpb.TICKET_STATUS_ASSIGNED:
                    return update.assignment
                if update.status == mmpb.TICKET_STATUS_EXPIRED:
                    raise TicketExpired(f"ticket {update.ticket_id} waited too long and expired; queue again")
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE or attempt == RECONNECTS - 1:
                raise
    raise RuntimeError(f"queue {request.command_id}: the stream ended without an assignment")


@contextlib.contextmanager
def _stopping_on_signals(stopped: list[int]) -> Iterator[None]:
    """While the block runs, SIGTERM and SIGHUP cancel this task (as Ctrl-C cancels the
    command's), their number noted in `stopped`; the handlers are removed after."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    installed: list[int] = []

    def stop(signum: int) -> None:
        if not stopped and task is not None:
            stopped.append(signum)
            task.cancel()

    for signum in map(int, STOPPING):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not the main thread
            loop.add_signal_handler(signum, stop, signum)
            installed.append(signum)
    try:
        yield
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)


def _uncancel() -> None:
    """The cancellation our own signal handler asked for has been handled."""
    task = asyncio.current_task()
    if task is not None:
        task.uncancel()


async def _withdraw(stub: GatewayStub, ticket_id: str, session: Metadata) -> None:
    # Already placed, or the gateway is gone: nothing more to do.
    with contextlib.suppress(grpc.aio.AioRpcError):
        await stub.CancelTicket(pb.CancelTicketRequest(ticket_id=ticket_id), metadata=session, timeout=5)
