"""Turn clocks: the arithmetic (services/match/clocks.py), then the match service
applying them (the deadline read from the log, a timeout appended as events under
the table's policy) on a fake two-seat game and a hand-turned wall clock."""

from __future__ import annotations

import asyncio

import pytest
from google.protobuf import any_pb2
from tabletop.common.v1 import common_pb2
from tabletop.deck.v1 import deck_service_pb2 as deck_pb
from tabletop.dice.v1 import dice_service_pb2 as dice_pb
from tabletop.match.v1 import events_pb2 as ev
from tabletop.rules.v1 import rules_service_pb2 as rpb

from services.common.errors import FailedPrecondition, InvalidArgument
from services.common.redis.keys import match_stream
from services.common.store.event_store import MemoryEventStore
from services.match import clocks, records
from services.match.app import MatchApp
from services.match.clocks import Clock, ClockSettings
from services.match.deadlines import MemoryDeadlines
from services.match.keeper import ClockKeeper
from services.match.lifecycle import Holder, Status

T0 = 1_800_000_000_000
MOVE = any_pb2.Any(type_url="type.googleapis.com/test.Move", value=b"")
PASS = any_pb2.Any(type_url="type.googleapis.com/test.Pass", value=b"")
MOVES_TO_END = 6

# ---------------------------------------------------------------- the arithmetic


def _move(allowance: int = 60_000, policy: str = "pass") -> ClockSettings:
    return ClockSettings("move", allowance, 0, policy)


def test_the_first_clock_gives_every_seat_its_allowance_and_runs_the_asked_ones():
    first = clocks.folded(clocks.tick(_move(), None, 3, T0, (1,), None))
    assert first == Clock(T0, (60_000, 60_000, 60_000), (1,))
    assert first.deadline(1) == T0 + 60_000 and first.deadline(0) is None


def test_per_move_a_seat_that_moved_gets_a_fresh_allowance_and_a_waiting_seat_keeps_its_time_left():
    clock = Clock(T0, (60_000, 60_000), (0, 1))  # both asked at once
    after = clocks.folded(clocks.tick(_move(), clock, 2, T0 + 20_000, (0, 1), 0))
    assert after.remaining_ms == (60_000, 40_000)
    assert after.deadline(1) == T0 + 60_000  # the waiting seat's deadline did not move


def test_per_game_a_bank_runs_down_while_asked_and_earns_its_increment_per_own_move():
    game = ClockSettings("game", 300_000, 5_000, "bot")
    clock = clocks.folded(clocks.tick(game, None, 2, T0, (0,), None))
    after = clocks.folded(clocks.tick(game, clock, 2, T0 + 100_000, (1,), 0))
    assert after.remaining_ms == (205_000, 300_000) and after.running == (1,)
    # Seat 0's bank runs on from where it stopped when it is asked again.
    again = clocks.folded(clocks.tick(game, after, 2, T0 + 150_000, (0,), 1))
    assert again.remaining_ms == (205_000, 255_000) and again.deadline(0) == T0 + 150_000 + 205_000


def test_a_move_the_clock_made_earns_nothing_so_an_absent_seat_stays_out_of_time():
    clock = Clock(T0, (60_000, 60_000), (0,))
    after = clocks.folded(clocks.tick(_move(), clock, 2, T0 + 61_000, (0,), None))
    assert after.remaining_ms[0] == 0 and after.overdue(T0 + 61_000) == [0]


def test_an_undo_sets_every_clock_back_and_the_undoer_pays_for_all_the_time_since():
    game = ClockSettings("game", 12_000, 0, "forfeit")
    before = clocks.folded(clocks.tick(game, None, 2, T0, (0,), None))  # seat 0 to act, both banks full
    held = clocks.folded(clocks.tick(game, before, 2, T0 + 1_000, (1,), 0))  # seat 0 acted; seat 1's bank runs
    # Three seconds later seat 0 takes it back: seat 1's bank is as it was, stopped; seat 0 paid 4 s.
    undone = clocks.folded(clocks.restore(before, T0 + 4_000, 0))
    assert held.running == (1,) and undone == Clock(T0 + 4_000, (8_000, 12_000), (0,))
    assert undone.deadline(0) == T0 + 12_000 and undone.deadline(1) is None


def test_per_move_an_undo_gives_the_undoer_what_was_left_of_its_allowance_then_less_the_time_since():
    before = Clock(T0, (60_000, 60_000, 25_000), (0, 2))  # seats 0 and 2 asked at once
    undone = clocks.folded(clocks.restore(before, T0 + 20_000, 0))
    # The other seat asked then runs again with its time left then: nothing moved to or from it.
    assert undone == Clock(T0 + 20_000, (40_000, 60_000, 25_000), (0, 2))


def test_an_undoers_clock_restored_never_goes_below_zero():
    undone = clocks.folded(clocks.restore(Clock(T0, (5_000, 5_000), (0,)), T0 + 9_000, 0))
    assert undone.remaining_ms == (0, 5_000) and undone.overdue(T0 + 9_000) == [0]


def test_overdue_seats_come_earliest_deadline_first():
    clock = Clock(T0, (5_000, 1_000, 9_000), (0, 1, 2))
    assert clock.overdue(T0 + 6_000) == [1, 0]
    assert clock.next_deadline() == T0 + 1_000


# ---------------------------------------------------------------- a fake two-seat game


class TurnRules:
    """Seats alternate; each may Move or Pass (or only Move with `passes` off); the game
    ends after MOVES_TO_END moves. The state is the number of moves made. With `undoable`,
    the rules call every move that does not end the game undoable."""

    def __init__(self, passes: bool = True, undoable: bool = False) -> None:
        self.passes = passes
        self.undoable = undoable
        self.setups: list[dict[str, str]] = []

    async def DescribeGame(self, request: rpb.DescribeGameRequest) -> rpb.DescribeGameResponse:
        return rpb.DescribeGameResponse(game="turns", min_seats=2, max_seats=2, passes=["Pass"] if self.passes else [])

    async def Setup(self, request: rpb.SetupRequest) -> rpb.SetupResponse:
        self.setups.append(dict(request.config))
        return rpb.SetupResponse(state=_state(0), turn=rpb.Turn(seats=[0]))

    async def Decide(self, request: rpb.DecideRequest) -> rpb.DecideResponse:
        made = int(request.state.data) + 1
        kind = request.action.type_url.rsplit(".", 1)[-1]
        emitted = rpb.EmittedEvent(
            event=any_pb2.Any(type_url=f"type.googleapis.com/test.{kind}d", value=b""),
            visibility=common_pb2.Visibility(audience=common_pb2.AUDIENCE_PUBLIC),
        )
        return rpb.DecideResponse(
            state=_state(made), turn=_turn(made), events=[emitted], outcome=_outcome(made),
            undoable=self.undoable and made < MOVES_TO_END,
        )

    async def Replay(self, request: rpb.ReplayRequest) -> rpb.ReplayResponse:
        made = int(request.state.data) + len(request.events) + len(request.event_data)
        return rpb.ReplayResponse(state=_state(made), turn=_turn(made), outcome=_outcome(made))

    async def ListLegalActions(self, request: rpb.ListLegalActionsRequest) -> rpb.ListLegalActionsResponse:
        made = int(request.state.data)
        asked = made < MOVES_TO_END and request.seat == made % 2
        legal = ([MOVE, PASS] if self.passes else [MOVE]) if asked else []
        return rpb.ListLegalActionsResponse(actions=legal, passes=[1] if self.passes and asked else [])

    async def GetPosition(self, request: rpb.GetPositionRequest) -> rpb.GetPositionResponse:
        made = int(request.state.data)
        position = rpb.Position(spectator_view=any_pb2.Any(type_url="type.googleapis.com/test.View"))
        for seat in range(request.seat_count):
            asked = made < MOVES_TO_END and seat == made % 2
            legal = ([MOVE, PASS] if self.passes else [MOVE]) if asked else []
            position.seats.add(seat=seat, legal_actions=legal)
        return rpb.GetPositionResponse(position=position)


def _state(made: int) -> rpb.EngineState:
    return rpb.EngineState(game="turns", data=str(made).encode())


def _turn(made: int) -> rpb.Turn:
    return rpb.Turn(finished=True) if made >= MOVES_TO_END else rpb.Turn(seats=[made % 2])


def _outcome(made: int) -> common_pb2.Outcome | None:
    return common_pb2.Outcome(ranking=[1, 1], scores=[0, 0]) if made >= MOVES_TO_END else None


class Dice:
    async def CommitSeed(self, request: dice_pb.CommitSeedRequest) -> dice_pb.CommitSeedResponse:
        return dice_pb.CommitSeedResponse(commitment="c")

    async def RevealSeed(self, request: dice_pb.RevealSeedRequest) -> dice_pb.RevealSeedResponse:
        return dice_pb.RevealSeedResponse(seed="s")


class Deck:
    async def ReleaseMatch(self, request: deck_pb.ReleaseMatchRequest) -> deck_pb.ReleaseMatchResponse:
        return deck_pb.ReleaseMatchResponse()


class Wall:
    """The wall clock every replica of a test reads, turned by hand."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> int:
        return self.now


class Table:
    def __init__(self, passes: bool = True, undoable: bool = False) -> None:
        self.store = MemoryEventStore(lease_ms=100)
        self.rules = TurnRules(passes, undoable)
        self.deadlines = MemoryDeadlines()
        self.wall = Wall()

    def replica(self) -> MatchApp:
        return MatchApp(
            self.store, {"turns": self.rules}, Dice(), Deck(),  # type: ignore[dict-item, arg-type]
            deadlines=self.deadlines, now_ms=self.wall,
        )

    async def types(self) -> list[str]:
        return [e.type.rsplit(".", 1)[-1] for e in await self.store.read(match_stream("m1"))]


CLOCK = {"clock": "move", "clock_seconds": "60"}


async def _started(app: MatchApp, config: dict[str, str]) -> None:
    await app.create("turns", config, 2, match_id="m1")
    await app.join("m1", "p-ana", None)
    await app.join("m1", "p-ben", None)
    await app.start("m1")


async def test_an_unclocked_match_writes_no_clock_events():
    table = Table()
    app = table.replica()
    await _started(app, {})
    await app.submit("m1", 0, MOVE, "c1", Holder("p-ana", 1))
    assert "ClockSet" not in await table.types()
    assert (await app.timekeeper.expire("m1")) is None and table.deadlines.pending() == {}


async def test_the_table_options_stay_out_of_the_games_setup_and_a_bad_one_is_refused_by_name():
    table = Table()
    app = table.replica()
    await _started(app, {**CLOCK, "clock_timeout": "forfeit"})
    assert table.rules.setups and all("clock" not in setup for setup in table.rules.setups)
    with pytest.raises(InvalidArgument) as refused:
        await app.create("turns", {"clock": "hourglass"}, 2, match_id="m2")
    assert refused.value.metadata == {"option": "clock"}
    with pytest.raises(InvalidArgument):
        await app.create("turns", {"clock": "move", "clock_seconds": "1"}, 2, match_id="m3")


async def test_the_start_runs_the_first_seats_clock_and_schedules_its_deadline_before_anyone_moves():
    table = Table()
    app = table.replica()
    await _started(app, CLOCK)
    match = await app.current("m1")
    assert match.clock == Clock(T0, (60_000, 60_000), (0,))
    assert table.deadlines.pending() == {"m1": T0 + 60_000}
    clocks_seen = records.summary(match).clocks
    assert [(c.seat, c.running, c.deadline_ms, c.remaining_ms) for c in clocks_seen] == [
        (0, True, T0 + 60_000, 60_000),
        (1, False, 0, 60_000),
    ]


async def test_a_move_in_time_stops_the_movers_clock_and_starts_the_next_seats():
    table = Table()
    app = table.replica()
    await _started(app, CLOCK)
    table.wall.now = T0 + 10_000
    await app.submit("m1", 0, MOVE, "c1", Holder("p-ana", 1))
    assert (await app.current("m1")).clock == Clock(T0 + 10_000, (60_000, 60_000), (1,))
    assert (await table.types())[-2:] == ["Moved", "ClockSet"]


async def test_nothing_happens_before_the_deadline_and_the_pass_policy_passes_after_it():
    table = Table()
    app = table.replica()
    await _started(app, CLOCK)
    table.wall.now = T0 + 59_999
    assert await app.timekeeper.expire("m1") == T0 + 60_000
    assert "ClockExpired" not in await table.types()
    table.wall.now = T0 + 60_000
    assert await app.timekeeper.expire("m1") == T0 + 120_000  # now seat 1's fresh allowance runs
    log = await table.store.read(match_stream("m1"))
    expired = ev.ClockExpired.FromString(next(e.data for e in log if e.type.endswith("ClockExpired")))
    assert (expired.seat, expired.policy, expired.deadline_ms) == (0, "pass", T0 + 60_000)
    assert (await table.types())[-3:] == ["ClockExpired", "Passd", "ClockSet"]
    assert (await app.current("m1")).clock == Clock(T0 + 60_000, (0, 60_000), (1,))


async def test_a_game_without_a_pass_gets_a_bot_move_and_the_log_says_so():
    table = Table(passes=False)
    app = table.replica()
    await _started(app, {**CLOCK, "clock_timeout": "pass"})
    table.wall.now = T0 + 61_000
    await app.timekeeper.expire("m1")
    log = await table.store.read(match_stream("m1"))
    expired = ev.ClockExpired.FromString(next(e.data for e in log if e.type.endswith("ClockExpired")))
    assert expired.policy == "bot"
    assert "Moved" in await table.types()


async def test_forfeit_ends_the_match_with_the_timed_out_seat_last_and_reveals_the_seed():
    table = Table()
    app = table.replica()
    await _started(app, {**CLOCK, "clock_timeout": "forfeit"})
    table.wall.now = T0 + 60_500
    assert await app.timekeeper.expire("m1") is None
    match = await app.current("m1")
    assert match.status == Status.FINISHED and match.outcome is not None
    assert list(match.outcome.ranking) == [2, 1] and match.outcome.detail["reason"] == "timeout"
    assert (await table.types())[-4:] == ["ClockExpired", "MatchEnded", "SeedRevealed", "ClockSet"]
    assert all(not c.running for c in records.summary(match).clocks)


async def test_a_seat_out_of_time_may_no_longer_move_the_clock_moves_for_it():
    table = Table()
    app = table.replica()
    await _started(app, CLOCK)
    table.wall.now = T0 + 60_000
    with pytest.raises(FailedPrecondition) as refused:
        await app.submit("m1", 0, MOVE, "late", Holder("p-ana", 1))
    assert refused.value.reason == "clock.expired"


async def test_an_absent_seat_keeps_timing_out_while_it_is_asked_and_its_turn_passes_whole():
    # Under game clocks a bank at zero stays at zero: every later turn of the seat times out at once.
    table = Table()
    app = table.replica()
    await _started(app, {"clock": "game", "clock_seconds": "30"})
    table.wall.now = T0 + 30_000
    await app.timekeeper.expire("m1")  # seat 0 passes
    await app.submit("m1", 1, MOVE, "b1", Holder("p-ben", 1))  # seat 1 in time
    # Seat 0 is due again at once and passes; seat 1's bank runs on from 30 s.
    assert await app.timekeeper.expire("m1") == T0 + 60_000
    assert (await table.types()).count("ClockExpired") == 2


async def test_a_rebuilt_match_has_the_same_clock_as_the_live_one():
    table = Table()
    live = table.replica()
    await _started(live, CLOCK)
    table.wall.now = T0 + 5_000
    await live.submit("m1", 0, MOVE, "c1", Holder("p-ana", 1))
    table.wall.now = T0 + 70_000
    await live.timekeeper.expire("m1")
    rebuilt = await table.replica().current("m1")
    assert rebuilt.clock == (await live.current("m1")).clock
    assert records.from_record(records.to_record(rebuilt)).clock == rebuilt.clock


async def test_two_replicas_timing_out_at_once_append_one_timeout():
    table = Table()
    one, two = table.replica(), table.replica()
    await _started(one, CLOCK)
    await two.current("m1")
    table.wall.now = T0 + 60_000
    await asyncio.gather(one.timekeeper.expire("m1"), two.timekeeper.expire("m1"))
    assert (await table.types()).count("ClockExpired") == 1


async def test_the_keeper_claims_what_is_due_times_it_out_and_settles_the_next_deadline():
    table = Table()
    app = table.replica()
    await _started(app, CLOCK)
    keeper = ClockKeeper(app.timekeeper)
    assert await keeper.sweep() == 0
    table.wall.now = T0 + 60_000
    assert await keeper.sweep() == 1
    assert "ClockExpired" in await table.types()
    assert table.deadlines.pending() == {"m1": T0 + 120_000}


async def test_a_wake_up_scheduled_before_an_append_that_never_landed_finds_nothing_due():
    table = Table()
    app = table.replica()
    await _started(app, CLOCK)
    await table.deadlines.schedule("m1", T0 + 1_000)  # as if a batch died after scheduling
    table.wall.now = T0 + 1_000
    assert await ClockKeeper(app.timekeeper).sweep() == 1
    assert "ClockExpired" not in await table.types()
    assert table.deadlines.pending() == {"m1": T0 + 60_000}


async def test_a_seat_out_of_time_cannot_take_its_moves_back_either():
    table = Table()
    app = table.replica()
    await _started(app, CLOCK)
    await app.submit("m1", 0, MOVE, "c1", Holder("p-ana", 1))  # seat 1 to move
    table.wall.now = T0 + 60_000
    with pytest.raises(FailedPrecondition) as refused:
        await app.undo("m1", 1, 1, "u1", Holder("p-ben", 1))
    assert refused.value.reason == "clock.expired"


# ---------------------------------------------------------------- undo and the clocks (issue 27)


async def _act_and_undo(table: Table, app: MatchApp, turns: int, think_ms: int, wait_ms: int) -> list[Clock]:
    """Seat 0 moves after `think_ms`, waits `wait_ms` while seat 1's clock would run, and
    takes the move back, `turns` times; the clocks after each undo."""
    seen = []
    for n in range(turns):
        table.wall.now += think_ms
        await app.submit("m1", 0, MOVE, f"m{n}", Holder("p-ana", 1))
        table.wall.now += wait_ms
        await app.undo("m1", 0, 1, f"u{n}", Holder("p-ana", 1))
        clock = (await app.current("m1")).clock
        assert clock is not None
        seen.append(clock)
    return seen


@pytest.mark.parametrize("mode", ["game", "move"])
async def test_act_and_undo_takes_no_time_from_the_other_seat_and_all_of_it_from_the_undoer(mode: str):
    table = Table(undoable=True)
    app = table.replica()
    await _started(app, {"clock": mode, "clock_seconds": "12", "clock_timeout": "forfeit"})
    seen = await _act_and_undo(table, app, 3, think_ms=10, wait_ms=3_000)
    for n, clock in enumerate(seen, 1):
        spent = n * 3_010
        assert clock == Clock(T0 + spent, (12_000 - spent, 12_000), (0,)), f"after undo {n}"
    assert table.deadlines.pending() == {"m1": T0 + 12_000}  # seat 0's own deadline never moved
    table.wall.now = T0 + 11_999
    assert await app.timekeeper.expire("m1") == T0 + 12_000 and "ClockExpired" not in await table.types()


async def test_the_fourth_undo_of_a_turn_is_refused_and_the_rebuilt_clocks_agree():
    table = Table(undoable=True)
    app = table.replica()
    await _started(app, {"clock": "game", "clock_seconds": "12", "clock_timeout": "forfeit"})
    await _act_and_undo(table, app, 3, think_ms=10, wait_ms=1_000)
    table.wall.now += 10
    await app.submit("m1", 0, MOVE, "m3", Holder("p-ana", 1))
    assert records.summary(await app.current("m1")).undoable == 0
    with pytest.raises(FailedPrecondition) as refused:
        await app.undo("m1", 0, 1, "u3", Holder("p-ana", 1))
    assert refused.value.reason == "undo.limit"
    live = await app.current("m1")
    rebuilt = await table.replica().current("m1")
    assert rebuilt.clock == live.clock and rebuilt.undo == live.undo
    assert live.clock == Clock(T0 + 3_040, (12_000 - 3_040, 12_000), (1,))  # seat 1 asked, its bank whole
