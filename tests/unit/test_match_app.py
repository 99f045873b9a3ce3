"""The match use cases over the typed ports: a whole coin-flip match, a retried
command, a race between two replicas, and the steps that follow a commit."""

from __future__ import annotations

import pytest
from google.protobuf import any_pb2
from tabletop.common.v1 import chance_pb2, common_pb2
from tabletop.deck.v1 import deck_service_pb2 as deck_pb
from tabletop.dice.v1 import dice_service_pb2 as dice_pb
from tabletop.match.v1 import events_pb2 as ev
from tabletop.rules.v1 import rules_service_pb2 as rpb

from services.common.audience import Audience
from services.common.errors import AlreadyExists, InvalidArgument, PermissionDenied
from services.common.redis.keys import match_stream
from services.common.security.tls import KnownPeer
from services.common.store.event_store import MemoryEventStore
from services.match import lifecycle
from services.match.app import MatchApp
from services.match.directory import MemoryDirectory
from services.match.lifecycle import Holder, Status

FLIP = any_pb2.Any(type_url="type.googleapis.com/test.Flip", value=b"")


def _emitted(type_name: str, audience: int, seat: int | None = None, redacted: str = "") -> rpb.EmittedEvent:
    emitted = rpb.EmittedEvent(
        event=any_pb2.Any(type_url=f"type.googleapis.com/{type_name}", value=b"e"),
        visibility=common_pb2.Visibility(audience=audience, seat=seat),
    )
    if redacted:
        emitted.redacted.CopyFrom(any_pb2.Any(type_url=f"type.googleapis.com/{redacted}", value=b""))
    return emitted


class CoinRules:
    """Seat 0 flips (and peeks at a secret); the coin lands by a die roll; then it is over."""

    def __init__(self) -> None:
        self.asked: list[str] = []  # the view and legal-action calls, in order

    async def Setup(self, request: rpb.SetupRequest) -> rpb.SetupResponse:
        return rpb.SetupResponse(state=rpb.EngineState(game="coin", data=b"ready"), turn=rpb.Turn(seats=[0]))

    async def Decide(self, request: rpb.DecideRequest) -> rpb.DecideResponse:
        if request.WhichOneof("move") == "action":
            return rpb.DecideResponse(
                state=rpb.EngineState(game="coin", data=b"flipped"),
                turn=rpb.Turn(chance=chance_pb2.ChanceRequest(roll_dice=chance_pb2.RollDice(faces=2, count=1))),
                events=[
                    _emitted("test.Flipped", common_pb2.AUDIENCE_PUBLIC),
                    _emitted("test.Peeked", common_pb2.AUDIENCE_SEAT, 0, redacted="test.PeekHidden"),
                ],
            )
        heads = request.chance.dice_rolled.values[0] == 2
        landed = rpb.DecideResponse(
            state=rpb.EngineState(game="coin", data=b"landed"),
            turn=rpb.Turn(finished=True),
            events=[_emitted("test.Landed", common_pb2.AUDIENCE_PUBLIC)],
            outcome=common_pb2.Outcome(ranking=[1, 2] if heads else [2, 1], scores=[1, 0]),
        )
        if request.position_seats:  # no chance pending after this one: the position comes along
            asked = rpb.GetPositionRequest(state=landed.state, seat_count=request.position_seats)
            landed.position.CopyFrom(self._position(asked))
        return landed

    async def GetView(self, request: rpb.GetViewRequest) -> rpb.GetViewResponse:
        self.asked.append("GetView")
        seen = request.state.data + (b"@%d" % request.viewer if request.HasField("viewer") else b"")
        return rpb.GetViewResponse(view=any_pb2.Any(type_url="type.googleapis.com/test.View", value=seen))

    async def ListLegalActions(self, request: rpb.ListLegalActionsRequest) -> rpb.ListLegalActionsResponse:
        self.asked.append("ListLegalActions")
        return rpb.ListLegalActionsResponse(actions=[FLIP])

    async def GetPosition(self, request: rpb.GetPositionRequest) -> rpb.GetPositionResponse:
        self.asked.append("GetPosition")
        return rpb.GetPositionResponse(position=self._position(request))

    @staticmethod
    def _position(request: rpb.GetPositionRequest) -> rpb.Position:
        position = rpb.Position(spectator_view=_view(request.state.data))
        for seat in range(request.seat_count):
            acts = [FLIP] if seat == 0 and request.state.data == b"ready" else []
            position.seats.add(seat=seat, view=_view(request.state.data + b"@%d" % seat), legal_actions=acts)
        return position


def _view(seen: bytes) -> any_pb2.Any:
    return any_pb2.Any(type_url="type.googleapis.com/test.View", value=seen)


class Dice:
    def __init__(self) -> None:
        self.revealed: list[str] = []

    async def CommitSeed(self, request: dice_pb.CommitSeedRequest) -> dice_pb.CommitSeedResponse:
        return dice_pb.CommitSeedResponse(commitment=f"commit-{request.match_id}")

    async def RollDice(self, request: dice_pb.RollDiceRequest) -> dice_pb.RollDiceResponse:
        return dice_pb.RollDiceResponse(values=[2])

    async def RevealSeed(self, request: dice_pb.RevealSeedRequest) -> dice_pb.RevealSeedResponse:
        self.revealed.append(request.match_id)
        return dice_pb.RevealSeedResponse(seed="seed")


class Deck:
    def __init__(self) -> None:
        self.released: list[str] = []

    async def ReleaseMatch(self, request: deck_pb.ReleaseMatchRequest) -> deck_pb.ReleaseMatchResponse:
        self.released.append(request.match_id)
        return deck_pb.ReleaseMatchResponse()


class Table:
    """One store, and as many match service replicas on it as a test wants."""

    def __init__(self) -> None:
        # A short lease: a race between replicas waits one out (the default is 3 s).
        self.store = MemoryEventStore(lease_ms=100)
        self.dice, self.deck = Dice(), Deck()
        self.directory = MemoryDirectory()
        self.finished: list[tuple[str, str]] = []
        self.rules = CoinRules()

    def replica(self) -> MatchApp:
        async def announce(match_id: str, game: str) -> None:
            self.finished.append((match_id, game))

        return MatchApp(
            self.store, {"coin": self.rules}, self.dice, self.deck,  # type: ignore[dict-item, arg-type]
            on_finished=announce, directory=self.directory,
        )


async def ready(app: MatchApp) -> str:
    match = await app.create("coin", {}, 2, match_id="m1")
    await app.join("m1", "p-ana", None, display_name="Ana")
    await app.join("m1", "p-ben", None, display_name="Ben")
    return match.match_id


async def test_an_action_its_chance_and_the_end_land_in_one_append_then_the_end_is_announced():
    table = Table()
    app = table.replica()
    await ready(app)
    started = await app.start("m1", seat=0, holder=Holder("p-ana", 1))
    assert started == 4
    assert await table.directory.find("coin", int(Status.ACTIVE), 10) == ["m1"]

    done = await app.submit("m1", 0, FLIP, "c:flip", Holder("p-ana", 1))
    assert (done.version, done.duplicate) == (10, False)
    log = await table.store.read(match_stream("m1"), after_version=4)
    assert [e.type for e in log] == [
        "test.Flipped", "test.Peeked", "tabletop.match.v1.ChanceResolved", "test.Landed",
        "tabletop.match.v1.MatchEnded", "tabletop.match.v1.SeedRevealed",
    ]
    peeked = log[1]
    assert (peeked.audience, peeked.seat, peeked.redacted_type) == (Audience.SEAT, 0, "test.PeekHidden")
    assert ev.ChanceResolved.FromString(log[2].data).outcome.dice_rolled.values == [2]

    match = await app.current("m1")
    assert (match.status, list(match.outcome.ranking), match.version) == (Status.FINISHED, [1, 2], 10)
    assert table.dice.revealed == ["m1"] and table.deck.released == ["m1"]
    assert table.finished == [("m1", "coin")]
    assert await table.directory.find("", int(Status.FINISHED), 10) == ["m1"]


async def test_a_retried_command_answers_as_the_first_time_and_appends_nothing():
    table = Table()
    app = table.replica()
    await ready(app)
    await app.start("m1")
    first = await app.submit("m1", 0, FLIP, "c:flip", Holder("p-ana", 1))
    again = await app.submit("m1", 0, FLIP, "c:flip", Holder("p-ana", 1))
    assert (again.version, again.duplicate) == (first.version, True)
    assert await table.store.version(match_stream("m1")) == first.version
    assert table.deck.released == ["m1"] and table.finished == [("m1", "coin")], "the end is settled once"


async def test_a_replica_that_lost_a_race_catches_up_and_decides_again():
    table = Table()
    ours, theirs = table.replica(), table.replica()
    await ours.create("coin", {}, 2, match_id="m1")
    await theirs.current("m1")
    await ours.join("m1", "p-ana", None)
    # `theirs` still holds the empty lobby: it decides seat 0, loses the append, then takes seat 1.
    joined = await theirs.join("m1", "p-ben", None)
    assert (joined.seat, joined.version, joined.tenure) == (1, 3, 1)
    assert (await ours.current("m1")).players == ("p-ana", "p-ben")


async def test_a_retried_join_answers_with_the_seat_it_took():
    table = Table()
    app = table.replica()
    await app.create("coin", {}, 2, match_id="m1")
    first = await app.join("m1", "p-ana", None, "c:join")
    assert await app.join("m1", "p-ana", None, "c:join") == first


async def test_views_are_the_seats_own_and_replays_wait_for_the_end():
    table = Table()
    app = table.replica()
    await ready(app)
    match, view = await app.view("m1", None)
    assert view is None and match.status == Status.LOBBY
    await app.start("m1")
    _, seen = await app.view("m1", 1, Holder("p-ben", 1))
    assert seen is not None and seen.value == b"ready@1"
    assert await app.legal_actions("m1", 0) == (4, [FLIP])
    await app.submit("m1", 0, FLIP)
    past, then = await app.view_at("m1", 4, None)
    assert past.version == 4 and then is not None and then.value == b"ready"


async def test_a_submit_answers_the_whole_next_position_computed_once_for_every_reader():
    table = Table()
    app = table.replica()
    await ready(app)
    await app.start("m1")
    match, position = await app.position("m1")
    assert position is not None and table.rules.asked == ["GetPosition"]
    assert [p.view.value for p in position.seats] == [b"ready@0", b"ready@1"]
    assert position.spectator_view.value == b"ready"
    assert [list(p.legal_actions) for p in position.seats] == [[FLIP], []]
    # The reads of that version come from the same position: no more rules calls.
    assert await app.legal_actions("m1", 0) == (match.version, [FLIP])
    _, seen = await app.view("m1", 1, Holder("p-ben", 1))
    assert seen is not None and seen.value == b"ready@1"
    assert table.rules.asked == ["GetPosition"]

    done = await app.submit("m1", 0, FLIP, "c:flip", Holder("p-ana", 1))
    assert done.match is not None and done.match.version == done.version == 10
    assert done.position is not None and [p.view.value for p in done.position.seats] == [b"landed@0", b"landed@1"]
    assert (await app.position("m1"))[1] == done.position
    assert table.rules.asked == ["GetPosition"], "the deciding call brought the position along"
    _, seen = await app.view("m1", None)
    assert seen is not None and seen.value == b"landed" and table.rules.asked == ["GetPosition"]
    again = await app.submit("m1", 0, FLIP, "c:flip", Holder("p-ana", 1))
    assert again.duplicate and again.position is None


async def test_no_position_before_the_start():
    table = Table()
    app = table.replica()
    await ready(app)
    match, position = await app.position("m1")
    assert position is None and match.status == Status.LOBBY and table.rules.asked == []


async def test_only_a_caller_that_asks_gets_the_whole_position_with_a_submit():
    from tabletop.match.v1 import match_service_pb2 as mpb

    from services.match.servicer import MatchServicer

    table = Table()
    app = table.replica()
    await ready(app)
    await app.start("m1")
    servicer = MatchServicer(app)
    ana = mpb.SeatHolder(player_id="p-ana", tenure=1)
    # A submit that does not ask (as the matchmaker's bots never do) gets no seat's secrets.
    plain = mpb.SubmitActionRequest(match_id="m1", seat=0, action=FLIP, command_id="c:1", holder=ana)
    reply = await servicer.SubmitAction(plain, KnownPeer("gateway"))
    assert reply.version == 10 and not reply.HasField("match") and not reply.HasField("position")
    table2 = Table()
    app2 = table2.replica()
    await ready(app2)
    await app2.start("m1")
    plain.with_position = True
    reply = await MatchServicer(app2).SubmitAction(plain, KnownPeer("gateway"))
    assert reply.match.version == reply.version == 10
    assert [p.view.value for p in reply.position.seats] == [b"landed@0", b"landed@1"]


async def test_only_the_gateway_may_ask_for_the_whole_position():
    from tabletop.match.v1 import match_service_pb2 as mpb

    from services.match.servicer import MatchServicer

    table = Table()
    app = table.replica()
    await ready(app)
    await app.start("m1")
    before = (await app.current("m1")).version
    ana = mpb.SeatHolder(player_id="p-ana", tenure=1)
    asking = mpb.SubmitActionRequest(
        match_id="m1", seat=0, action=FLIP, command_id="c:1", holder=ana, with_position=True
    )
    for context in (KnownPeer("matchmaker"), None):
        with pytest.raises(PermissionDenied) as refused:
            await MatchServicer(app).SubmitAction(asking, context)
        assert refused.value.reason == "position.gateway_only"
    assert (await app.current("m1")).version == before, "a refused submit changes nothing"


PAIR = [("p-ana", "Ana"), ("p-ben", "Ben")]


async def test_a_formed_match_is_created_seated_and_started_in_one_append():
    table = Table()
    appends: list[int] = []
    append = table.store.append

    async def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        appends.append(len(args[2]))  # (stream, expected version, events, ...)
        return await append(*args, **kwargs)

    table.store.append = counted  # type: ignore[method-assign]
    app = table.replica()
    match = await app.form("coin", {}, PAIR, "m1:form", "m1")
    assert appends == [4]
    assert (match.status, match.players, match.version) == (Status.ACTIVE, ("p-ana", "p-ben"), 4)
    assert [match.name(seat) for seat in (0, 1)] == ["Ana", "Ben"]
    assert [match.tenure(seat) for seat in (0, 1)] == [1, 1]
    log = await table.store.read(match_stream("m1"))
    assert [e.type for e in log] == [
        "tabletop.match.v1.MatchCreated", "tabletop.match.v1.PlayerJoined", "tabletop.match.v1.PlayerJoined",
        "tabletop.match.v1.MatchStarted",
    ]
    assert await table.directory.find("coin", int(Status.ACTIVE), 10) == ["m1"]
    # The formed match plays like any other.
    done = await app.submit("m1", 0, FLIP, "c:flip", Holder("p-ana", 1))
    assert done.version == 10


async def test_a_retried_formation_answers_the_match_and_writes_nothing():
    table = Table()
    app = table.replica()
    first = await app.form("coin", {}, PAIR, "m1:form", "m1")
    again = await table.replica().form("coin", {}, PAIR, "m1:form", "m1")
    assert (again.version, again.players) == (first.version, first.players)
    assert await table.store.version(match_stream("m1")) == 4


async def test_a_formation_cannot_take_an_existing_match_id_or_reuse_a_command_id():
    table = Table()
    app = table.replica()
    await app.create("coin", {}, 2, command_id="m1:seal", match_id="m1")  # the id is taken (a sealed job)
    with pytest.raises(AlreadyExists) as taken:
        await app.form("coin", {}, PAIR, "m1:form", "m1")
    assert taken.value.reason == "match.exists"
    await app.form("coin", {}, PAIR, "m2:form", "m2")
    with pytest.raises(AlreadyExists) as reused:
        await app.form("coin", {}, list(reversed(PAIR)), "m2:form", "m2")
    assert reused.value.reason == "command.reused"
    assert (await app.current("m1")).status == Status.LOBBY
    assert (await app.current("m2")).players == ("p-ana", "p-ben")


@pytest.mark.parametrize(
    ("players", "match_id"),
    [([], "m1"), ([("p-ana", "Ana"), ("", "Nobody")], "m1"), ([("x" * 65, "Long")], "m1"), (PAIR, "no/such id")],
)
async def test_a_malformed_formation_is_refused_and_writes_nothing(players, match_id):
    table = Table()
    with pytest.raises(InvalidArgument):
        await table.replica().form("coin", {}, players, "c:form", match_id)
    assert await table.store.version(match_stream(match_id)) == 0


async def test_a_unit_of_work_that_lost_the_race_appends_nothing_and_decides_again_on_the_caught_up_match():
    table = Table()
    ours, theirs = table.replica(), table.replica()
    await ours.create("coin", {}, 2, match_id="m1")
    await theirs.current("m1")
    await ours.join("m1", "p-ana", None)
    turns = theirs._turns
    async with theirs._work.on("m1") as unit:
        stale = unit.match  # as `theirs` cached it: the empty lobby
        assert await unit.commit(await turns.apply(stale, lifecycle.decide_join(stale, "p-ben", None, ""))) is None
        assert (unit.match.version, unit.match.players) == (2, ("p-ana", ""))
        written = await unit.commit(await turns.apply(unit.match, lifecycle.decide_join(unit.match, "p-ben", None, "")))
    assert written is not None and written.version == 3
    assert (await ours.current("m1")).players == ("p-ana", "p-ben")
    assert await table.directory.find("coin", int(Status.LOBBY), 10) == ["m1"]
