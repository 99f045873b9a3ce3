"""Undo: the pure track (services/match/undo.py), then the match service taking
actions back on a fake game whose seats act twice in a row, and the rules' own
verdict on real engines (services/rules/app.py `undoable`)."""

from __future__ import annotations

import pytest
from google.protobuf import any_pb2
from tabletop.common.v1 import chance_pb2, common_pb2
from tabletop.deck.v1 import deck_service_pb2 as deck_pb
from tabletop.dice.v1 import dice_service_pb2 as dice_pb
from tabletop.match.v1 import events_pb2 as ev
from tabletop.rules.v1 import rules_service_pb2 as rpb

from services.common.audience import Audience, entitled
from services.common.errors import FailedPrecondition, InvalidArgument, PermissionDenied
from services.common.redis.keys import match_stream
from services.common.store.event_store import MemoryEventStore
from services.match import records, undo
from services.match.app import MatchApp
from services.match.lifecycle import Holder
from services.match.undo import CLEAR, UndoTrack

MOVE = any_pb2.Any(type_url="type.googleapis.com/test.Move", value=b"")
PEEK = any_pb2.Any(type_url="type.googleapis.com/test.Peek", value=b"")
ROLL = any_pb2.Any(type_url="type.googleapis.com/test.Roll", value=b"")
GAME_EVENT = "test.Moved"
POINT, UNDONE, CLOCK = undo.UNDO_POINT, undo.UNDONE, ev.ClockSet.DESCRIPTOR.full_name


def _point(seat: int, events: int = 1) -> tuple[str, bytes]:
    return POINT, ev.UndoPoint(seat=seat, events=events).SerializeToString()


# ---------------------------------------------------------------- the track


def test_an_undo_point_remembers_the_version_before_its_batch_and_covers_its_events():
    track = undo.steps(CLEAR, 10, [_point(0, 2), (GAME_EVENT, b""), (GAME_EVENT, b""), (CLOCK, b"")])
    assert track == UndoTrack(0, (9,), 0)
    track = undo.steps(track, 14, [_point(0), (GAME_EVENT, b"")])
    assert track.versions == (9, 13) and track.available == 2


def test_another_seats_action_chance_or_an_uncovered_event_clears_the_track():
    mine = undo.steps(CLEAR, 1, [_point(0), (GAME_EVENT, b"")])
    assert undo.steps(mine, 3, [_point(1), (GAME_EVENT, b"")]) == UndoTrack(1, (2,), 0)
    chance = ev.ChanceResolved.DESCRIPTOR.full_name
    assert undo.steps(mine, 3, [(chance, b"")]) == CLEAR
    assert undo.steps(mine, 3, [(GAME_EVENT, b"")]) == CLEAR  # a batch without an UndoPoint
    assert undo.steps(mine, 3, [(ev.ClockExpired.DESCRIPTOR.full_name, b"")]) == CLEAR


def test_an_undo_forgets_what_it_took_back_and_counts_itself():
    track = UndoTrack(0, (3, 5, 7), 0)
    taken = ev.ActionsUndone(seat=0, count=2).SerializeToString()
    assert undo.step(track, 9, UNDONE, taken) == UndoTrack(0, (3,), 0, undos=1)
    emptied = undo.step(UndoTrack(0, (3,), 0, 1), 9, UNDONE, ev.ActionsUndone(count=1).SerializeToString())
    assert emptied == UndoTrack(0, (), 0, undos=2) and emptied.available == 0


def _undone(count: int = 1) -> tuple[str, bytes]:
    return UNDONE, ev.ActionsUndone(seat=0, count=count).SerializeToString()


def test_a_seat_may_undo_at_most_three_times_a_turn():
    track = CLEAR
    version = 1
    for _ in range(undo.MAX_UNDOS_PER_TURN):
        track = undo.steps(track, version, [_point(0), (GAME_EVENT, b""), _undone(), (CLOCK, b"")])
        version += 4
    assert track.undos == undo.MAX_UNDOS_PER_TURN
    track = undo.steps(track, version, [_point(0), (GAME_EVENT, b"")])
    assert track.versions == (version - 1,) and track.available == 0  # no summary offers it
    with pytest.raises(FailedPrecondition) as limit:
        undo.check_undo(track, 0, 1)
    assert limit.value.reason == "undo.limit"


def test_the_count_starts_again_when_another_seat_acts_or_chance_happens():
    spent = UndoTrack(0, (4,), 0, undos=undo.MAX_UNDOS_PER_TURN)
    assert undo.steps(spent, 6, [_point(1), (GAME_EVENT, b"")]) == UndoTrack(1, (5,), 0)
    chance = ev.ChanceResolved.DESCRIPTOR.full_name
    assert undo.steps(spent, 6, [(chance, b""), _point(0), (GAME_EVENT, b"")]) == UndoTrack(0, (6,), 0)
    assert undo.steps(spent, 6, [(GAME_EVENT, b""), _point(0), (GAME_EVENT, b"")]) == UndoTrack(0, (6,), 0)


def test_the_track_keeps_the_last_actions_only():
    track = CLEAR
    for version in range(1, 2 * undo.MAX_UNDO + 1, 2):
        track = undo.steps(track, version, [_point(0), (GAME_EVENT, b"")])
    assert track.available == undo.MAX_UNDO and track.versions[-1] == 2 * undo.MAX_UNDO - 2


def test_an_undo_is_refused_by_name_when_it_cannot_be():
    with pytest.raises(FailedPrecondition, match="nothing to undo") as none:
        undo.check_undo(CLEAR, 0, 1)
    assert none.value.reason == "undo.nothing_to_undo"
    with pytest.raises(FailedPrecondition) as other:
        undo.check_undo(UndoTrack(1, (4,), 0), 0, 1)
    assert other.value.reason == "undo.not_yours"
    with pytest.raises(FailedPrecondition) as many:
        undo.check_undo(UndoTrack(0, (4,), 0), 0, 2)
    assert many.value.reason == "undo.too_many"
    with pytest.raises(InvalidArgument):
        undo.check_undo(UndoTrack(0, (4,), 0), 0, 0)
    assert undo.check_undo(UndoTrack(0, (4, 6), 0), 0, 2) == 4


# ---------------------------------------------------------------- a fake game


class PairRules:
    """Seats act twice in a row (seat = moves // 2 % 2). Move may be taken back; Peek
    discloses something (the rules say it cannot); Roll asks for a die."""

    async def DescribeGame(self, request: rpb.DescribeGameRequest) -> rpb.DescribeGameResponse:
        return rpb.DescribeGameResponse(game="pairs", min_seats=2, max_seats=2)

    async def Setup(self, request: rpb.SetupRequest) -> rpb.SetupResponse:
        return rpb.SetupResponse(state=_state(0), turn=_turn(0))

    async def Decide(self, request: rpb.DecideRequest) -> rpb.DecideResponse:
        made = int(request.state.data.split(b":")[0])
        if request.WhichOneof("move") == "chance":
            return rpb.DecideResponse(state=_state(made), turn=_turn(made), events=[_emitted("test.Rolled")])
        kind = request.action.type_url.rsplit(".", 1)[-1]
        made += 1
        if kind == "Roll":
            rolling = rpb.Turn(chance=chance_pb2.ChanceRequest(roll_dice=chance_pb2.RollDice(faces=6, count=1)))
            return rpb.DecideResponse(state=_state(made), turn=rolling, events=[_emitted("test.Rolling")])
        return rpb.DecideResponse(
            state=_state(made), turn=_turn(made), events=[_emitted(f"test.{kind}ed")], undoable=kind == "Move"
        )

    async def Replay(self, request: rpb.ReplayRequest) -> rpb.ReplayResponse:
        made = int(request.state.data.split(b":")[0])
        made += sum(1 for e in request.events if not e.type_url.endswith("Rolled"))
        made += 0 if request.event_type.endswith("Rolled") else len(request.event_data)
        return rpb.ReplayResponse(state=_state(made), turn=_turn(made))

    async def GetView(self, request: rpb.GetViewRequest) -> rpb.GetViewResponse:
        position = (await self.GetPosition(rpb.GetPositionRequest(state=request.state, seat_count=2))).position
        seen = position.seats[request.viewer].view if request.HasField("viewer") else position.spectator_view
        return rpb.GetViewResponse(view=seen)

    async def ListLegalActions(self, request: rpb.ListLegalActionsRequest) -> rpb.ListLegalActionsResponse:
        position = (await self.GetPosition(rpb.GetPositionRequest(state=request.state, seat_count=2))).position
        return rpb.ListLegalActionsResponse(actions=position.seats[request.seat].legal_actions)

    async def GetPosition(self, request: rpb.GetPositionRequest) -> rpb.GetPositionResponse:
        made = int(request.state.data.split(b":")[0])
        spectator = any_pb2.Any(type_url="type.googleapis.com/test.View", value=b"%d" % made)
        position = rpb.Position(spectator_view=spectator)
        for seat in range(request.seat_count):
            legal = [MOVE, PEEK, ROLL] if seat == made // 2 % 2 else []
            view = any_pb2.Any(type_url="type.googleapis.com/test.View", value=b"%d@%d" % (made, seat))
            position.seats.add(seat=seat, view=view, legal_actions=legal)
        return rpb.GetPositionResponse(position=position)


def _state(made: int) -> rpb.EngineState:
    # The state's tail stands for every secret the engine holds.
    return rpb.EngineState(game="pairs", data=b"%d:SECRET-DECK-ORDER" % made)


def _turn(made: int) -> rpb.Turn:
    return rpb.Turn(seats=[made // 2 % 2])


def _emitted(type_name: str) -> rpb.EmittedEvent:
    return rpb.EmittedEvent(
        event=any_pb2.Any(type_url=f"type.googleapis.com/{type_name}", value=b""),
        visibility=common_pb2.Visibility(audience=common_pb2.AUDIENCE_PUBLIC),
    )


class Dice:
    async def CommitSeed(self, request: dice_pb.CommitSeedRequest) -> dice_pb.CommitSeedResponse:
        return dice_pb.CommitSeedResponse(commitment="c")

    async def RollDice(self, request: dice_pb.RollDiceRequest) -> dice_pb.RollDiceResponse:
        return dice_pb.RollDiceResponse(values=[4])


class Deck:
    async def ReleaseMatch(self, request: deck_pb.ReleaseMatchRequest) -> deck_pb.ReleaseMatchResponse:
        return deck_pb.ReleaseMatchResponse()


ANA, BEN = Holder("p-ana", 1), Holder("p-ben", 1)


class Table:
    def __init__(self) -> None:
        self.store = MemoryEventStore(lease_ms=100)

    def replica(self, snapshot_every: int = 50) -> MatchApp:
        return MatchApp(
            self.store, {"pairs": PairRules()}, Dice(), Deck(), snapshot_every  # type: ignore[dict-item, arg-type]
        )

    async def log(self):
        return await self.store.read(match_stream("m1"))


async def _started(app: MatchApp) -> None:
    await app.create("pairs", {}, 2, match_id="m1")
    await app.join("m1", "p-ana", None)
    await app.join("m1", "p-ben", None)
    await app.start("m1")


async def test_a_seat_takes_back_its_last_action_and_sees_the_position_it_had_before():
    table = Table()
    app = table.replica()
    await _started(app)
    before = await app.current("m1")
    _, view_before = await app.view("m1", 0, ANA)
    moved = await app.submit("m1", 0, MOVE, "c1", ANA)
    assert records.summary(moved.match).undoable == 1 and records.summary(moved.match).undo_seat == 0
    done = await app.undo("m1", 0, 1, "u1", ANA)
    after = await app.current("m1")
    assert after.version == done.version > moved.version  # the log grew
    assert after.engine_state == before.engine_state and after.turn.seats == before.turn.seats
    _, view_after = await app.view("m1", 0, ANA)
    assert view_after == view_before
    assert (await app.legal_actions("m1", 0, ANA))[1] == [MOVE, PEEK, ROLL]
    assert records.summary(after).undoable == 0


async def test_two_actions_back_at_once_and_a_retried_undo_answers_as_the_first_time():
    table = Table()
    app = table.replica()
    await _started(app)
    start_state = (await app.current("m1")).engine_state
    await app.submit("m1", 0, MOVE, "c1", ANA)
    await app.submit("m1", 0, MOVE, "c2", ANA)  # seat 0's second action; seat 1 is asked now
    assert (await app.current("m1")).undo.available == 2
    first = await app.undo("m1", 0, 2, "u1", ANA)
    again = await app.undo("m1", 0, 2, "u1", ANA)
    assert again.match is None and again.version == first.version
    assert (await app.current("m1")).engine_state == start_state


async def test_no_undo_after_another_seat_acted_after_chance_or_after_a_disclosure():
    table = Table()
    app = table.replica()
    await _started(app)
    await app.submit("m1", 0, MOVE, "c1", ANA)
    await app.submit("m1", 0, MOVE, "c2", ANA)
    await app.submit("m1", 1, MOVE, "c3", BEN)
    with pytest.raises(FailedPrecondition) as other:
        await app.undo("m1", 0, 1, "u1", ANA)
    assert other.value.reason == "undo.not_yours"
    await app.submit("m1", 1, ROLL, "c4", BEN)  # the die is rolled in the same batch
    with pytest.raises(FailedPrecondition) as rolled:
        await app.undo("m1", 1, 1, "u2", BEN)
    assert rolled.value.reason == "undo.nothing_to_undo"
    await app.submit("m1", 0, PEEK, "c5", ANA)
    with pytest.raises(FailedPrecondition) as peeked:
        await app.undo("m1", 0, 1, "u3", ANA)
    assert peeked.value.reason == "undo.nothing_to_undo"


async def test_only_the_seats_holder_may_take_its_actions_back():
    table = Table()
    app = table.replica()
    await _started(app)
    await app.submit("m1", 0, MOVE, "c1", ANA)
    with pytest.raises(PermissionDenied):
        await app.undo("m1", 0, 1, "u1", Holder("p-mallory", 1))
    with pytest.raises(FailedPrecondition):
        await app.undo("m1", 1, 1, "u2", BEN)


async def test_the_undo_is_in_every_viewers_log_but_the_state_it_restores_only_on_the_servers():
    table = Table()
    app = table.replica()
    await _started(app)
    await app.submit("m1", 0, MOVE, "c1", ANA)
    await app.undo("m1", 0, 1, "u1", ANA)
    (stored,) = [e for e in await table.log() if e.type == UNDONE]
    assert stored.audience is Audience.SERVER and b"SECRET-DECK-ORDER" in stored.data
    for viewer in (None, 0, 1):
        assert not entitled(stored.audience, stored.seat, viewer, finished=True)
    public = ev.ActionsUndone.FromString(stored.redacted)
    assert (public.seat, public.count, public.state) == (0, 1, b"")
    assert b"SECRET" not in stored.redacted


async def test_a_fourth_undo_in_one_turn_is_refused_by_name_and_a_rebuild_counts_alike():
    for snapshot_every in (50, 3):
        table = Table()
        live = table.replica(snapshot_every)
        await _started(live)
        for n in range(undo.MAX_UNDOS_PER_TURN):
            await live.submit("m1", 0, MOVE, f"c{n}", ANA)
            await live.undo("m1", 0, 1, f"u{n}", ANA)
        await live.submit("m1", 0, MOVE, "c-last", ANA)
        with pytest.raises(FailedPrecondition) as refused:
            await live.undo("m1", 0, 1, "u-last", ANA)
        assert refused.value.reason == "undo.limit"
        now = await live.current("m1")
        rebuilt = await table.replica(snapshot_every).current("m1")
        assert rebuilt == now and now.undo.undos == undo.MAX_UNDOS_PER_TURN
        assert records.summary(now).undoable == 0
        # Seat 1's move starts a new turn: seat 1 may undo.
        await live.submit("m1", 0, MOVE, "c-more", ANA)
        await live.submit("m1", 1, MOVE, "b1", BEN)
        await live.undo("m1", 1, 1, "ub1", BEN)


async def test_a_rebuilt_match_equals_the_live_one_after_undos_with_or_without_a_snapshot():
    for snapshot_every in (50, 3):
        table = Table()
        live = table.replica(snapshot_every)
        await _started(live)
        await live.submit("m1", 0, MOVE, "c1", ANA)
        await live.submit("m1", 0, MOVE, "c2", ANA)
        await live.undo("m1", 0, 1, "u1", ANA)
        await live.submit("m1", 0, MOVE, "c3", ANA)
        now = await live.current("m1")
        rebuilt = await table.replica(snapshot_every).current("m1")
        assert rebuilt == now
        assert now.undo.available == 2
        past = await table.replica().view_at("m1", now.version, None)
        assert past[0].engine_state == now.engine_state
