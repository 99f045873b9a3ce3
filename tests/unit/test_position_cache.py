"""The match's one position cache (RulesBook): a state's whole position and the views
asked of it alone live in one entry, each asked of the rules once; views at the same
state are shared by every match version that reaches it."""

from __future__ import annotations

from google.protobuf import any_pb2
from tabletop.rules.v1 import rules_service_pb2 as rpb

from services.match.lifecycle import Match
from services.match.turns import RulesBook


def _view(text: str) -> any_pb2.Any:
    return any_pb2.Any(type_url="type.test/View", value=text.encode())


class ViewRules:
    """Answers views and positions of a state named by its bytes, counting the calls."""

    def __init__(self) -> None:
        self.views: list[int] = []  # viewer asked (-1: spectator)
        self.positions = 0

    async def GetView(self, request: rpb.GetViewRequest) -> rpb.GetViewResponse:
        viewer = request.viewer if request.HasField("viewer") else -1
        self.views.append(viewer)
        return rpb.GetViewResponse(view=_view(f"{request.state.data.decode()}:{viewer}"))

    async def GetPosition(self, request: rpb.GetPositionRequest) -> rpb.GetPositionResponse:
        self.positions += 1
        state = request.state.data.decode()
        seats = [rpb.SeatPosition(view=_view(f"{state}:{seat}")) for seat in range(request.seat_count)]
        return rpb.GetPositionResponse(position=rpb.Position(seats=seats))


def _at(version: int, state: bytes) -> Match:
    return Match("m1", version=version, game="views", seat_count=2, engine_state=state)


async def test_views_asked_alone_are_asked_once_and_shared_by_versions_of_one_state() -> None:
    rules = ViewRules()
    book = RulesBook({"views": rules})  # type: ignore[dict-item]
    assert (await book.seen_by(_at(3, b"s"), None)).value == b"s:-1"
    assert (await book.seen_by(_at(3, b"s"), None)).value == b"s:-1"
    assert (await book.seen_by(_at(9, b"s"), 1)).value == b"s:1"
    assert (await book.seen_by(_at(11, b"s"), 1)).value == b"s:1"  # another version, the same state
    assert rules.views == [-1, 1]
    assert await book.seen_by(Match("m1", game="views", seat_count=2), 0) is None  # not started


async def test_a_position_answers_seats_and_keeps_the_views_asked_before_it() -> None:
    rules = ViewRules()
    book = RulesBook({"views": rules})  # type: ignore[dict-item]
    match = _at(4, b"t")
    await book.seen_by(match, None)  # the spectator's view, alone
    position = await book.position(match)
    assert position is not None and rules.positions == 1
    assert book.known_position(match) is position
    # A seat is answered from the position; the spectator's view kept beside it (the
    # position has none) is still there: no further call either way.
    assert (await book.seen_by(match, 0)).value == b"t:0"
    assert (await book.seen_by(match, None)).value == b"t:-1"
    assert rules.views == [-1] and rules.positions == 1
