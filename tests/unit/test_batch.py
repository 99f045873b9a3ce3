"""Batch calls to an internal service, and the client that gathers concurrent calls into them."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from tabletop.common.v1 import batch_pb2
from tabletop.dice.v1 import dice_service_pb2 as dice_pb

from services.common.errors import FailedPrecondition, InvalidArgument, PermissionDenied, Unavailable
from services.common.rpc import batch
from services.common.rpc.adapters import DiceClient
from services.common.rpc.coalesce import Coalescing
from services.common.rpc.transport import InProcess
from services.common.security import authz


class Dice:
    """A dice servicer's shape, answering without Redis: rolls are the counter repeated."""

    def __init__(self) -> None:
        self.handled: list[str] = []
        self.gate: asyncio.Event | None = None  # set: calls wait for it

    async def RollDice(self, request: dice_pb.RollDiceRequest, context: object) -> dice_pb.RollDiceResponse:
        self.handled.append(f"roll {request.counter}")
        await asyncio.sleep(0)  # a call takes a while: others are asked meanwhile
        if self.gate is not None:
            await self.gate.wait()
        if request.counter < 0:
            raise FailedPrecondition("no such draw", "dice.bad_counter", {"counter": str(request.counter)})
        return dice_pb.RollDiceResponse(values=[request.counter] * request.count)

    async def Permute(self, request: dice_pb.PermuteRequest, context: object) -> dice_pb.PermuteResponse:
        raise RuntimeError("a bug in the handler")

    async def RevealSeed(self, request: dice_pb.RevealSeedRequest, context: object) -> dice_pb.RevealSeedResponse:
        self.handled.append("reveal")
        return dice_pb.RevealSeedResponse(seed="00", commitment="c")

    async def Batch(self, request: dice_pb.BatchRequest, context: object) -> dice_pb.BatchResponse:
        self.handled.append(f"batch of {len(request.calls)}")
        return dice_pb.BatchResponse(results=await batch.answer(self, authz.DICE, request.calls, context))


def client(servicer: Dice, caller: str = "match") -> DiceClient:
    replies = {name: getattr(DiceClient, name).response.FromString for name in DiceClient.batched}
    return DiceClient(Coalescing(InProcess(servicer, authz.DICE, caller), DiceClient.batch_request, replies))


def roll(counter: int, count: int = 2) -> dice_pb.RollDiceRequest:
    return dice_pb.RollDiceRequest(match_id="m", counter=counter, faces=6, count=count)


async def test_calls_asked_while_one_is_under_way_go_out_as_one_batch_each_with_its_own_answer():
    dice = Dice()
    replies = await _rolls(dice, range(5))
    assert [list(r.values) for r in replies] == [[n, n] for n in range(5)]
    # The first went at once; the four asked while it was under way, together.
    assert dice.handled[:2] == ["roll 0", "batch of 4"]
    assert sorted(dice.handled[2:]) == [f"roll {n}" for n in range(1, 5)]


async def _rolls(dice: Dice, counters: range) -> list[dice_pb.RollDiceResponse]:
    dice_client = client(dice)
    return list(await asyncio.gather(*(dice_client.RollDice(roll(n)) for n in counters)))


async def test_a_call_asked_alone_goes_alone():
    dice = Dice()
    reply = await client(dice).RollDice(roll(3))
    assert list(reply.values) == [3, 3]
    assert dice.handled == ["roll 3"]


async def test_calls_in_later_turns_make_batches_of_their_own():
    dice = Dice()
    dice.gate = asyncio.Event()
    dice_client = client(dice)
    calls = [asyncio.ensure_future(dice_client.RollDice(roll(n))) for n in range(3)]
    for _ in range(5):
        await asyncio.sleep(0)
    calls += [asyncio.ensure_future(dice_client.RollDice(roll(n))) for n in range(3, 5)]
    for _ in range(5):
        await asyncio.sleep(0)
    dice.gate.set()
    await asyncio.gather(*calls)
    assert [h for h in dice.handled if not h.startswith("roll")] == ["batch of 2", "batch of 2"]
    assert dice.handled[0] == "roll 0"


async def test_calls_one_after_another_go_out_alone():
    dice = Dice()
    dice_client = client(dice)
    for n in range(3):
        await dice_client.RollDice(roll(n))
    assert dice.handled == ["roll 0", "roll 1", "roll 2"]


async def test_a_failing_call_fails_alone_with_the_error_it_would_have_met_alone():
    dice = Dice()
    dice_client = client(dice)
    _, good, bad = await asyncio.gather(
        dice_client.RollDice(roll(0)), dice_client.RollDice(roll(1)), dice_client.RollDice(roll(-1)),
        return_exceptions=True,
    )
    assert "batch of 2" in dice.handled
    assert isinstance(good, dice_pb.RollDiceResponse) and list(good.values) == [1, 1]
    assert isinstance(bad, FailedPrecondition)
    assert (bad.message, bad.reason, bad.metadata) == ("no such draw", "dice.bad_counter", {"counter": "-1"})
    with pytest.raises(FailedPrecondition) as alone:
        await dice_client.RollDice(roll(-1))
    assert (alone.value.message, alone.value.reason) == (bad.message, bad.reason)


async def test_a_batch_refused_as_a_whole_fails_every_call_in_it():
    dice = Dice()
    dice_client = client(dice, caller="gateway")  # may not call the dice at all
    outcomes = await asyncio.gather(*(dice_client.RollDice(roll(n)) for n in range(3)), return_exceptions=True)
    assert all(isinstance(o, PermissionDenied) for o in outcomes)
    assert dice.handled == []


async def test_methods_not_batched_go_straight_through():
    dice = Dice()
    dice_client = client(dice)
    await asyncio.gather(dice_client.RevealSeed(dice_pb.RevealSeedRequest(match_id="m")),
                         dice_client.RevealSeed(dice_pb.RevealSeedRequest(match_id="n")))
    assert dice.handled == ["reveal", "reveal"]


class Context:
    def __init__(self, caller: str) -> None:
        self._auth = {"x509_common_name": [caller.encode()]}

    def auth_context(self) -> dict[str, list[bytes]]:
        return self._auth


def call(method: str, request: bytes) -> batch_pb2.BatchCall:
    return batch_pb2.BatchCall(method=method, request=request)


async def test_each_call_of_a_batch_is_held_to_the_policy_as_if_it_came_alone():
    dice = Dice()
    results = await batch.answer(dice, authz.DICE, [
        call("RollDice", roll(1).SerializeToString()),
        call("RevealSeed", dice_pb.RevealSeedRequest(match_id="m").SerializeToString()),
    ], Context("deck"))  # the deck may permute, never roll or reveal
    assert [r.error.reason for r in results] == ["auth.method_denied", "auth.method_denied"]
    assert dice.handled == []


async def test_unknown_methods_and_malformed_requests_are_refused_call_by_call():
    dice = Dice()
    results = await batch.answer(dice, authz.DICE, [
        call("RollDice", roll(2).SerializeToString()),
        call("Batch", b""),
        call("Nothing", b""),
        call("RollDice", b"\xff\xff\xff"),
    ], Context("match"))
    assert results[0].WhichOneof("result") == "response"
    assert dice_pb.RollDiceResponse.FromString(results[0].response).values == [2, 2]
    assert [batch.error_of(r.error).reason for r in results[1:]] == [
        "batch.unknown_method", "batch.unknown_method", "request.malformed",
    ]
    assert all(isinstance(batch.error_of(r.error), InvalidArgument) for r in results[1:])


async def test_a_batch_has_a_size_limit():
    with pytest.raises(InvalidArgument):
        await batch.answer(Dice(), authz.DICE, [call("RollDice", b"")] * (batch.MAX_CALLS + 1), Context("match"))


def test_error_codes_survive_the_round_trip():
    error = batch.error_of(batch.error_message(Unavailable("the dice service is unavailable", "dice.unavailable")))
    assert isinstance(error, Unavailable) and error.reason == "dice.unavailable"


async def test_a_handlers_fault_fails_its_call_alone():
    results = await batch.answer(Dice(), authz.DICE, [
        call("RollDice", roll(1).SerializeToString()),
        call("Permute", dice_pb.PermuteRequest(match_id="m", counter=0, n=3).SerializeToString()),
    ], Context("match"))
    assert results[0].WhichOneof("result") == "response"
    assert batch.error_of(results[1].error).code == grpc.StatusCode.INTERNAL


class Miscounting(Dice):
    async def Batch(self, request: dice_pb.BatchRequest, context: object) -> dice_pb.BatchResponse:
        answered = await batch.answer(self, authz.DICE, request.calls, context)
        return dice_pb.BatchResponse(results=answered[:-1])


async def test_a_batch_answered_wrongly_fails_its_calls_instead_of_leaving_them_waiting():
    dice_client = client(Miscounting())
    outcomes = await asyncio.wait_for(
        asyncio.gather(*(dice_client.RollDice(roll(n)) for n in range(4)), return_exceptions=True), timeout=5
    )
    assert isinstance(outcomes[0], dice_pb.RollDiceResponse)  # went alone
    assert [type(o).__name__ for o in outcomes[1:]] == ["ServiceError"] * 3
    assert all(o.code == grpc.StatusCode.INTERNAL and o.reason == "batch.unanswered" for o in outcomes[1:])
