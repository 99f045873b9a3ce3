"""Exchange: unary calls as messages on one mutual-TLS stream (services/common/rpc/mux.py).

A real grpc.aio server with the platform's interceptor and a real client; the
servicer answers without Redis.
"""

from __future__ import annotations

import asyncio
import pathlib
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from tabletop.dice.v1 import dice_service_pb2 as dice_pb
from tabletop.dice.v1 import dice_service_pb2_grpc as dice_grpc

from services.common.errors import FailedPrecondition, PermissionDenied, Unavailable
from services.common.rpc import mux
from services.common.rpc.adapters import DiceClient, Metered
from services.common.rpc.gate import Gate
from services.common.rpc.server import ServiceInterceptor
from services.common.security import authz, pki, tls


class Dice(dice_grpc.DiceServiceServicer):
    """Rolls are the counter repeated; a negative counter is refused; `hold` makes rolls wait."""

    def __init__(self) -> None:
        self.hold: asyncio.Event | None = None
        self.started = 0

    async def RollDice(self, request: dice_pb.RollDiceRequest, context: object) -> dice_pb.RollDiceResponse:
        self.started += 1
        if self.hold is not None:
            await self.hold.wait()
        if request.counter < 0:
            raise FailedPrecondition("no such draw", "dice.bad_counter")
        return dice_pb.RollDiceResponse(values=[request.counter] * request.count)

    async def CommitSeed(self, request: dice_pb.CommitSeedRequest, context: object) -> dice_pb.CommitSeedResponse:
        return dice_pb.CommitSeedResponse(commitment=request.match_id)

    async def Exchange(self, requests: AsyncIterator[Any], context: Any) -> AsyncIterator[dice_pb.ExchangeResponse]:
        async for message in mux.answer(self, authz.DICE, requests, context, dice_pb.ExchangeResponse):
            yield message


@pytest.fixture(scope="module")
def pki_dir(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return pki.ensure(tmp_path_factory.mktemp("pki"))


def material(pki_dir: pathlib.Path, identity: str) -> tls.Material:
    files = pki.files(pki_dir, identity)
    return tls.Material.read(files.ca, files.cert, files.key)


async def start(pki_dir: pathlib.Path, dice: Dice, gate: Gate) -> tuple[grpc.aio.Server, str]:
    server = grpc.aio.server(interceptors=[ServiceInterceptor(authorize=True, gate=gate)])
    dice_grpc.add_DiceServiceServicer_to_server(dice, server)
    port = server.add_secure_port("127.0.0.1:0", tls.server_credentials(material(pki_dir, "dice")))
    await server.start()
    return server, f"127.0.0.1:{port}"


def client(pki_dir: pathlib.Path, addr: str, caller: str = "match", timeout: float = 5.0) -> DiceClient:
    return DiceClient.remote(addr, tls.dial(material(pki_dir, caller), "dice"), timeout=timeout)


def roll(counter: int) -> dice_pb.RollDiceRequest:
    return dice_pb.RollDiceRequest(match_id="m", counter=counter, faces=6, count=2)


async def test_concurrent_calls_share_one_stream_and_each_gets_its_own_answer(pki_dir: pathlib.Path) -> None:
    dice = Dice()
    server, addr = await start(pki_dir, dice, Gate(0, 0))
    dice_client = client(pki_dir, addr)
    try:
        replies = await asyncio.gather(*(dice_client.RollDice(roll(n)) for n in range(50)))
        assert [list(reply.values) for reply in replies] == [[n, n] for n in range(50)]
        with pytest.raises(FailedPrecondition) as refused:
            await dice_client.RollDice(roll(-1))
        assert refused.value.reason == "dice.bad_counter"
        # One stream carried every call: the gate saw one open stream and no call left in flight.
        assert isinstance(dice_client.transport, Metered) and isinstance(dice_client.transport.inner, mux.Exchanging)
    finally:
        await dice_client.close()
        await server.stop(0)


async def test_each_call_on_the_stream_is_held_to_the_policy(pki_dir: pathlib.Path) -> None:
    dice = Dice()
    server, addr = await start(pki_dir, dice, Gate(0, 0))
    rules = client(pki_dir, addr, caller="rules")
    try:
        # The rules may roll under a grant, but never commit a seed: refused alone, on the same stream.
        with pytest.raises(PermissionDenied) as denied:
            await rules.CommitSeed(dice_pb.CommitSeedRequest(match_id="m"))
        assert denied.value.reason == "auth.method_denied"
        gateway = client(pki_dir, addr, caller="gateway")
        with pytest.raises(PermissionDenied):  # the gateway may not open the dice's Exchange at all
            await gateway.RollDice(roll(1))
        await gateway.close()
    finally:
        await rules.close()
        await server.stop(0)


async def test_a_drain_answers_calls_in_flight_and_refuses_later_ones(pki_dir: pathlib.Path) -> None:
    dice, gate = Dice(), Gate(0, 0)
    dice.hold = asyncio.Event()
    server, addr = await start(pki_dir, dice, gate)
    dice_client = client(pki_dir, addr)
    try:
        in_flight = asyncio.ensure_future(dice_client.RollDice(roll(7)))
        while dice.started == 0:
            await asyncio.sleep(0.01)
        gate.drain()
        dice.hold.set()
        assert list((await in_flight).values) == [7, 7]
        with pytest.raises(Unavailable):
            await dice_client.RollDice(roll(8))
    finally:
        await dice_client.close()
        await server.stop(0)


async def test_a_drain_under_steady_calls_loses_no_answer_it_sent(pki_dir: pathlib.Path) -> None:
    """Calls keep coming while the stream ends: a write then meets the finished stream, and
    the answers sent before the end must still reach their callers (none INTERNAL, none lost)."""
    for attempt in range(15):
        seen = await drain_while_calling(pki_dir, release_after=0.005 * (attempt % 5))
        assert set(seen) <= {grpc.StatusCode.OK, grpc.StatusCode.UNAVAILABLE}, attempt


async def drain_while_calling(pki_dir: pathlib.Path, release_after: float) -> list[grpc.StatusCode]:
    """One held call, four callers calling steadily, a drain, the held call released: the
    held call's answer, checked, and the codes the steady callers met."""
    dice, gate = Dice(), Gate(0, 0)
    dice.hold = asyncio.Event()
    server, addr = await start(pki_dir, dice, gate)
    dice_client = client(pki_dir, addr)
    stop = asyncio.Event()
    seen: list[grpc.StatusCode] = []
    try:
        in_flight = asyncio.ensure_future(dice_client.RollDice(roll(7)))
        while dice.started == 0:
            await asyncio.sleep(0.001)
        callers = [asyncio.ensure_future(keep_calling(dice_client, stop, seen)) for _ in range(4)]
        gate.drain()
        await asyncio.sleep(release_after)
        dice.hold.set()
        assert list((await in_flight).values) == [7, 7]
        await asyncio.sleep(0.02)
        stop.set()
        await asyncio.gather(*callers)
        return seen
    finally:
        stop.set()
        await dice_client.close()
        await server.stop(0)


async def keep_calling(dice_client: DiceClient, stop: asyncio.Event, seen: list[grpc.StatusCode]) -> None:
    while not stop.is_set():
        try:
            await dice_client.RollDice(roll(1))
            seen.append(grpc.StatusCode.OK)
        except Unavailable as refused:
            seen.append(refused.code)
        await asyncio.sleep(0)


async def test_a_call_the_server_never_answers_fails_unavailable_after_the_timeout(pki_dir: pathlib.Path) -> None:
    dice = Dice()
    dice.hold = asyncio.Event()
    server, addr = await start(pki_dir, dice, Gate(0, 0))
    dice_client = client(pki_dir, addr, timeout=0.4)
    try:
        with pytest.raises(Unavailable) as late:
            await dice_client.RollDice(roll(3))
        assert late.value.reason == "dice.unavailable"
    finally:
        dice.hold.set()
        await dice_client.close()
        await server.stop(0)


async def test_the_stream_reopens_after_the_server_restarts(pki_dir: pathlib.Path) -> None:
    dice = Dice()
    server, addr = await start(pki_dir, dice, Gate(0, 0))
    dice_client = client(pki_dir, addr, timeout=1.0)
    try:
        assert list((await dice_client.RollDice(roll(1))).values) == [1, 1]
        await server.stop(0)
        port = int(addr.rsplit(":", 1)[1])
        server = grpc.aio.server(interceptors=[ServiceInterceptor(authorize=True, gate=Gate(0, 0))])
        dice_grpc.add_DiceServiceServicer_to_server(dice, server)
        server.add_secure_port(f"127.0.0.1:{port}", tls.server_credentials(material(pki_dir, "dice")))
        await server.start()
        # The first call after the break may meet the dead stream (UNAVAILABLE, as a unary
        # call to a restarting server does); a later one goes over a new stream.
        for _ in range(20):
            try:
                reply = await dice_client.RollDice(roll(2))
                break
            except Unavailable:
                await asyncio.sleep(0.05)
        assert list(reply.values) == [2, 2]
    finally:
        await dice_client.close()
        await server.stop(0)


async def test_a_replica_that_comes_back_gets_its_share_of_the_calls_again(pki_dir: pathlib.Path) -> None:
    """Each lane is bound to one replica: while one is away the calls go to the other, and
    once it is back on its address it serves its share again (lanes over one round-robin
    channel reopened onto the replica that stayed, and the returning one got none)."""
    steady, returning = Dice(), Dice()
    first, first_addr = await start(pki_dir, steady, Gate(0, 0))
    second, second_addr = await start(pki_dir, returning, Gate(0, 0))
    dice_client = client(pki_dir, f"ipv4:{first_addr},{second_addr}", timeout=2.0)

    async def burst(n: int) -> None:
        # Each call for a match of its own: a match's calls go to one replica.
        await asyncio.gather(*(dice_client.RollDice(dice_pb.RollDiceRequest(
            match_id=f"m{i}", counter=1, faces=6, count=2)) for i in range(n)))

    try:
        await burst(40)
        assert steady.started and returning.started, "both replicas serve"
        await second.stop(0)
        for _ in range(50):  # calls in flight at the stop may fail; later ones go to the replica left
            try:
                await burst(8)
                break
            except Unavailable:
                await asyncio.sleep(0.05)
        served_alone = steady.started
        await burst(20)
        assert steady.started == served_alone + 20
        port = int(second_addr.rsplit(":", 1)[1])
        second = grpc.aio.server(interceptors=[ServiceInterceptor(authorize=True, gate=Gate(0, 0))])
        back = Dice()
        dice_grpc.add_DiceServiceServicer_to_server(back, second)
        second.add_secure_port(f"127.0.0.1:{port}", tls.server_credentials(material(pki_dir, "dice")))
        await second.start()
        for _ in range(100):  # reconnects within about a second (REPLICA_RECONNECT)
            await burst(10)
            if back.started:
                break
            await asyncio.sleep(0.05)
        await burst(40)
        assert back.started >= 10, f"the returned replica served {back.started} of the calls"
    finally:
        await dice_client.close()
        await first.stop(0)
        await second.stop(0)


async def test_a_matchs_calls_go_to_one_replica_the_same_in_every_caller(pki_dir: pathlib.Path) -> None:
    first, second = Dice(), Dice()
    one, one_addr = await start(pki_dir, first, Gate(0, 0))
    two, two_addr = await start(pki_dir, second, Gate(0, 0))
    target = f"ipv4:{one_addr},{two_addr}"
    callers = [client(pki_dir, target), client(pki_dir, target)]
    try:
        for caller in callers:
            await asyncio.gather(*(caller.RollDice(roll(i)) for i in range(30)))  # match "m" alone
        assert sorted([first.started, second.started]) == [0, 60], "one replica serves match m"
        for caller in callers:
            await asyncio.gather(*(caller.RollDice(dice_pb.RollDiceRequest(
                match_id=f"other-{i}", counter=1, faces=6, count=2)) for i in range(40)))
        assert first.started and second.started, "other matches are spread"
    finally:
        for caller in callers:
            await caller.close()
        await one.stop(0)
        await two.stop(0)


async def test_a_replica_gone_draws_no_new_calls_while_it_is_away(pki_dir: pathlib.Path) -> None:
    """A stopped server's channel goes IDLE, not TRANSIENT_FAILURE: its lane, having nothing
    in flight, must not draw the calls that follow, each then waiting out the timeout."""
    steady, leaving = Dice(), Dice()
    first, first_addr = await start(pki_dir, steady, Gate(0, 0))
    second, second_addr = await start(pki_dir, leaving, Gate(0, 0))
    dice_client = client(pki_dir, f"ipv4:{first_addr},{second_addr}", timeout=3.0)

    async def burst(n: int, tag: str) -> None:
        await asyncio.gather(*(dice_client.RollDice(dice_pb.RollDiceRequest(
            match_id=f"{tag}{i}", counter=1, faces=6, count=2)) for i in range(n)))

    try:
        await burst(40, "before")
        assert leaving.started, "both replicas serve"
        await second.stop(0)
        await asyncio.sleep(0.3)  # the lane reads its stream's end
        served = steady.started
        loop = asyncio.get_running_loop()
        began = loop.time()
        await burst(40, "after")
        assert loop.time() - began < 1.0, "no call waited on the replica that went away"
        assert steady.started == served + 40
    finally:
        await dice_client.close()
        await first.stop(0)
        await second.stop(0)
