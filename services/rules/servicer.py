"""gRPC adapter: the generic RulesService around one game's engine.

A Setup or Decide that carries the match's draw cursor also resolves the chance
that follows: a roll from the match's roll window (no call at all), a shuffle, deal
or put through the deck, a permutation through the dice, each instead of that call
by the match and another Decide. A rules process of its own rolls only from the slice
of the window the request carries, and calls the deck and the dice under the match's
grant (services/common/security/grants.py), as far as it reaches; rules in the match's process
roll from the match's own windows and call as the match. Whatever stops it (no dice
and deck configured, a roll past the slice, a pile past the grant's first draw
number, a refusal, an outage) leaves the rest to the match, which resolves chance as
it always has.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass

import grpc
import structlog
from google.protobuf import any_pb2
from google.protobuf.internal.containers import RepeatedCompositeFieldContainer
from google.protobuf.message import DecodeError, Message
from tabletop.common.v1 import chance_pb2, common_pb2
from tabletop.rules.v1 import rules_service_pb2 as pb
from tabletop.rules.v1 import rules_service_pb2_grpc as pb_grpc

from services.common import draws, metrics
from services.common.audience import to_wire
from services.common.draws import ChanceResolver, Pile
from services.common.errors import InvalidArgument, ServiceError
from services.common.lru import LRU
from services.common.rpc import batch, mux
from services.common.security import authz
from services.common.table_options import option_message
from services.dice.fair import Window
from services.games.common import chance, protocodec
from services.games.common.engine import Outcome, ToMove, Visibility
from services.rules.app import Decision, EngineHost, Position

log = structlog.get_logger()

# Chance steps resolved after one move without a grant (in process); the match goes on from there.
MAX_STEPS = 1000

# Packed legal actions kept per rules service (each a few dozen bytes).
ACTION_CACHE = 8192
# The wire tags (field number, length-delimited) of the repeated Any fields legal actions go in.
_SEAT_ACTIONS_TAG = bytes([pb.SeatPosition.DESCRIPTOR.fields_by_name["legal_actions"].number << 3 | 2])
_LIST_ACTIONS_TAG = bytes([pb.ListLegalActionsResponse.DESCRIPTOR.fields_by_name["actions"].number << 3 | 2])


def _delimited(payload: bytes) -> bytes:
    """`payload` behind its length, a varint, as a length-delimited field's value."""
    size, prefix = len(payload), bytearray()
    while size > 0x7F:
        prefix.append(size & 0x7F | 0x80)
        size >>= 7
    prefix.append(size)
    return bytes(prefix) + payload


# What Any.Pack puts before a message's full name.
_ANY_URL_PREFIX = "type.googleapis.com/"


def pack(message: Message) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def turn_message(turn: ToMove) -> pb.Turn:
    message = pb.Turn(seats=turn.seats, finished=not turn.seats and turn.chance is None)
    if turn.chance is not None:
        message.chance.CopyFrom(chance_message(turn.chance))
    return message


def chance_message(request: object) -> chance_pb2.ChanceRequest:
    """An engine's chance request (services/games/common/chance.py) as its message."""
    encoded = protocodec.encode_union(request, chance_pb2.ChanceRequest)
    assert isinstance(encoded, chance_pb2.ChanceRequest)
    return encoded


def outcome_message(outcome: Outcome) -> common_pb2.Outcome:
    message = common_pb2.Outcome(ranking=outcome.ranking, scores=outcome.scores, detail=dict(outcome.detail))
    if outcome.cooperative_win is not None:
        message.cooperative_win = outcome.cooperative_win
    return message


def visibility_message(visibility: Visibility) -> common_pb2.Visibility:
    message = common_pb2.Visibility(audience=to_wire(visibility.audience))
    if visibility.seat is not None:
        message.seat = visibility.seat
    return message


def pass_indices(passes: Sequence[str], kinds: Sequence[str]) -> list[int]:
    """Where the game's passes are among legal actions of these kinds, most passive first."""
    return [index for name in passes for index, kind in enumerate(kinds) if kind == name]


class RulesServicer(pb_grpc.RulesServiceServicer):
    def __init__(self, host: EngineHost, chance: ChanceResolver | None = None) -> None:
        self._host = host
        # The dice and the deck, for resolving the chance after a move (None: never).
        self._chance = chance
        self._game = host.entry.name
        # Each legal action's packed bytes (an Any), behind its length as the wire writes it.
        self._actions: LRU[object, bytes] = LRU(ACTION_CACHE, fifo=True)
        # An Any's first field, its type URL, for the game's actions (`_encoded_action`).
        url = _ANY_URL_PREFIX + host.codec.action_message.DESCRIPTOR.full_name
        self._action_url = b"\x0a" + _delimited(url.encode())

    def _data(self, state: pb.EngineState) -> bytes:
        if state.game != self._game:
            raise InvalidArgument(f"this rules service plays {self._game}, not {state.game or 'nothing'}", "game")
        return state.data

    def _unpack(self, packed: any_pb2.Any, message_cls: type[Message], what: str) -> Message:
        message = message_cls()
        try:
            unpacked = packed.Unpack(message)
        except DecodeError:
            raise InvalidArgument(f"undecodable {what}", "malformed_payload") from None
        if not unpacked:
            raise InvalidArgument(f"expected a {message_cls.DESCRIPTOR.full_name} {what}", "payload_type")
        return message

    def _action(self, packed: any_pb2.Any) -> object:
        message = self._unpack(packed, self._host.codec.action_message, "action")
        try:
            return self._host.codec.decode_action(message)
        except protocodec.ProtoMismatch as bad:
            raise InvalidArgument(f"malformed action: {bad}", "malformed_action") from None

    def _state(self, data: bytes) -> pb.EngineState:
        return pb.EngineState(game=self._game, data=data)

    async def DescribeGame(self, request: pb.DescribeGameRequest, context: object) -> pb.DescribeGameResponse:
        engine = self._host.engine
        return pb.DescribeGameResponse(
            game=self._game,
            min_seats=engine.min_seats,
            max_seats=engine.max_seats,
            options=[option_message(spec) for spec in engine.options],
            passes=engine.passes,
            cooperative=engine.cooperative,
        )

    async def Setup(self, request: pb.SetupRequest, context: object) -> pb.SetupResponse:
        if request.game and request.game != self._game:
            raise InvalidArgument(f"this rules service plays {self._game}", "game")
        state = self._host.setup(dict(request.config), request.seat_count)
        response = pb.SetupResponse()
        set_up = Decision((), state, self._host.engine.to_move(state), None, self._host.encode)
        if request.HasField("cursor") and self._chance is not None:
            set_up = await self._resolve(
                _grant(request), request.cursor, set_up, response.steps, request.seat_count, window=_window(request)
            )
            if set_up.turn.chance is None:
                response.position.CopyFrom(self._position_message(self._host.position(set_up.data, request.seat_count)))
        response.state.CopyFrom(self._state(set_up.data))
        response.turn.CopyFrom(turn_message(set_up.turn))
        if set_up.outcome is not None:
            response.outcome.CopyFrom(outcome_message(set_up.outcome))
        return response

    async def Decide(self, request: pb.DecideRequest, context: object) -> pb.DecideResponse:
        data = self._data(request.state)
        if request.WhichOneof("move") == "chance":
            try:
                move = protocodec.decode_union(request.chance, chance.OUTCOME_TYPES)
            except protocodec.ProtoMismatch as bad:
                raise InvalidArgument(f"malformed chance outcome: {bad}") from None
        elif request.WhichOneof("move") == "action":
            move = self._action(request.action)
        else:
            raise InvalidArgument("a move (action or chance outcome) is required")
        decision = self._host.decide(
            data, request.seat, move, request.position_seats, request.position_spectator, request.judge_undo
        )
        response = pb.DecideResponse(undoable=decision.undoable)
        self._emit(decision.events, response.events)
        if request.HasField("cursor") and self._chance is not None:
            decision = await self._resolve(
                _grant(request), request.cursor, decision, response.steps,
                request.position_seats, request.position_spectator, _window(request),
            )
            response.undoable = response.undoable and not response.steps
        response.state.CopyFrom(self._state(decision.data))
        response.turn.CopyFrom(turn_message(decision.turn))
        if decision.outcome is not None:
            response.outcome.CopyFrom(outcome_message(decision.outcome))
        if decision.position is not None:
            response.position.CopyFrom(self._position_message(decision.position))
        return response

    def _emit(
        self,
        events: Sequence[tuple[object, Visibility, object | None]],
        into: RepeatedCompositeFieldContainer[pb.EmittedEvent],
    ) -> None:
        """Events as the match logs them, each with its audience and redacted form."""
        codec = self._host.codec
        for event, visibility, redacted in events:
            emitted = into.add(visibility=visibility_message(visibility))
            emitted.event.Pack(codec.encode_event(event))  # in place: no Any built to be copied
            if redacted is not None:
                emitted.redacted.Pack(codec.encode_event(redacted))

    async def _resolve(
        self,
        grant: chance_pb2.ChanceGrant | None,
        cursor: pb.ChanceCursor,
        decision: Decision,
        steps: RepeatedCompositeFieldContainer[pb.ChanceStep],
        position_seats: int = 0,
        spectator: bool = False,
        window: Window | None = None,
    ) -> Decision:
        """The chance following `decision` resolved from the match's `cursor` (under its
        `grant` and rolling from its `window`, for a rules process of its own), each step
        added to `steps`; the decision after the last one."""
        assert self._chance is not None
        if not _awaits_chance(decision):
            # Most decisions leave players to act: the cursor's piles (a dozen in some games)
            # are read only when there is chance to resolve.
            return decision
        piles = tuple(Pile(p.name, p.counter, p.size, p.dealt) for p in cursor.piles)
        side = _RulesChance(self._host, self._emit, cursor.match_id, steps, position_seats, spectator)
        at = _Resolving(decision, cursor.next_counter, piles)
        limit = grant.counters if grant is not None else MAX_STEPS
        return (await draws.settle(self._chance, cursor.match_id, at, side, limit, grant, window)).decision

    async def Replay(self, request: pb.ReplayRequest, context: object) -> pb.ReplayResponse:
        codec = self._host.codec
        try:
            events = [codec.decode_event(self._unpack(e, codec.event_message, "event")) for e in request.events]
            if request.event_data:
                expected = codec.event_message.DESCRIPTOR.full_name
                if request.event_type != expected:
                    raise InvalidArgument(
                        f"expected {expected} events, not {request.event_type or 'an unnamed type'}", "payload_type"
                    )
                events += codec.decode_events(request.event_data)
        except (DecodeError, protocodec.ProtoMismatch):
            raise InvalidArgument("undecodable event", "malformed_payload") from None
        state, data = self._host.replay(self._data(request.state), events)
        response = pb.ReplayResponse(state=self._state(data), turn=turn_message(self._host.engine.to_move(state)))
        outcome = self._host.engine.result(state)
        if outcome is not None:
            response.outcome.CopyFrom(outcome_message(outcome))
        return response

    async def ListLegalActions(
        self, request: pb.ListLegalActionsRequest, context: object
    ) -> pb.ListLegalActionsResponse:
        state = self._host.state(self._data(request.state))
        actions = self._host.engine.legal_actions(state, request.seat)
        response = pb.ListLegalActionsResponse(
            passes=pass_indices(self._host.engine.passes, [type(a).__name__ for a in actions])
        )
        response.MergeFromString(self._actions_field(_LIST_ACTIONS_TAG, actions))
        return response

    async def GetView(self, request: pb.GetViewRequest, context: object) -> pb.GetViewResponse:
        state = self._host.state(self._data(request.state))
        viewer = request.viewer if request.HasField("viewer") else None
        view = self._host.engine.view(state, viewer)
        return pb.GetViewResponse(view=pack(self._host.codec.encode_view(view)))

    async def GetPosition(self, request: pb.GetPositionRequest, context: object) -> pb.GetPositionResponse:
        position = self._host.position(self._data(request.state), request.seat_count)
        return pb.GetPositionResponse(position=self._position_message(position))

    def _actions_field(self, tag: bytes, actions: Sequence[object]) -> bytes:
        """Legal actions as the wire writes a repeated Any field whose tag is `tag`: parsed
        in one call, where adding them one message at a time cost La Isla (about 50 legal
        actions a position) a tenth of its position message."""
        return tag + tag.join([self._packed_action(a) for a in actions]) if actions else b""

    def _packed_action(self, action: object) -> bytes:
        """An action's packed message (an Any) as a length-delimited field's value. Legal
        actions repeat from one position to the next (the same placement, the same card),
        and an action is a value: each one is encoded once and kept."""
        try:
            packed = self._actions.get(action)
        except TypeError:  # not hashable: a dict or list inside
            return self._encoded_action(action)
        if packed is None:
            packed = self._actions.put(action, self._encoded_action(action))
        return packed

    def _encoded_action(self, action: object) -> bytes:
        """The packed action as the wire writes an Any (its type's URL, then its value),
        without building the Any: most of a La Isla position's legal actions were never
        met before (a match offers some 1,500 different ones), and this is a fifth of
        encoding each."""
        value = self._host.codec.encode_action(action).SerializeToString()
        return _delimited(self._action_url + (b"\x12" + _delimited(value) if value else b""))

    def _position_message(self, position: Position) -> pb.Position:
        codec = self._host.codec
        message = pb.Position()
        with protocodec.sharing():  # the views of one state share their public parts
            for part in position.seats:
                seat = message.seats.add(seat=part.seat)
                seat.view.Pack(codec.encode_view(part.view))
                if part.legal_actions:
                    seat.MergeFromString(self._actions_field(_SEAT_ACTIONS_TAG, part.legal_actions))
            if position.spectator_view is not None:
                message.spectator_view.Pack(codec.encode_view(position.spectator_view))
        return message

    async def Batch(self, request: pb.BatchRequest, context: object) -> pb.BatchResponse:
        return pb.BatchResponse(results=await batch.answer(self, authz.RULES, request.calls, context))

    async def Exchange(
        self,
        requests: AsyncIterator[pb.ExchangeRequest],
        context: grpc.aio.ServicerContext[pb.ExchangeRequest, pb.ExchangeResponse],
    ) -> AsyncIterator[pb.ExchangeResponse]:
        async for message in mux.answer(self, authz.RULES, requests, context, pb.ExchangeResponse):
            yield message


def _grant(request: pb.DecideRequest | pb.SetupRequest) -> chance_pb2.ChanceGrant | None:
    return request.grant if request.HasField("grant") else None


def _window(request: pb.DecideRequest | pb.SetupRequest) -> Window | None:
    return draws.window_of(request.window) if request.HasField("window") else None


def _awaits_chance(decision: Decision) -> bool:
    """Whether `decision` leaves a chance request pending in a game that goes on."""
    return decision.turn.chance is not None and decision.outcome is None


# How events reach a response (RulesServicer._emit): the engine's events and where they go.
Emit = Callable[
    [Sequence[tuple[object, Visibility, object | None]], RepeatedCompositeFieldContainer[pb.EmittedEvent]], None
]


@dataclass(frozen=True)
class _Resolving:
    """Where a rules process stands in a move's chance: the decision so far and the cursor."""

    decision: Decision
    counter: int
    piles: tuple[Pile, ...]


class _RulesChance:
    """A rules process's side of the chance loop (draws.ChanceSide[_Resolving]): each step
    added to the response's `steps`, the engine deciding on its outcome as the chance seat."""

    def __init__(
        self,
        host: EngineHost,
        emit: Emit,
        match_id: str,
        steps: RepeatedCompositeFieldContainer[pb.ChanceStep],
        position_seats: int,
        spectator: bool,
    ) -> None:
        self._host, self._emit, self._match_id, self._steps = host, emit, match_id, steps
        self._position_seats, self._spectator = position_seats, spectator

    def wanted(self, at: _Resolving) -> chance_pb2.ChanceRequest | None:
        return chance_message(at.decision.turn.chance) if _awaits_chance(at.decision) else None

    def cursor(self, at: _Resolving) -> tuple[int, Callable[[str], Pile | None]]:
        return at.counter, {pile.name: pile for pile in at.piles}.get

    async def resolved(
        self, at: _Resolving, request: chance_pb2.ChanceRequest, outcome: chance_pb2.ChanceOutcome,
        how: draws.Resolution,
    ) -> _Resolving:
        step = self._steps.add(
            counter=how.counter, request=request, outcome=outcome,
            pile_counter=how.pile_counter, pile_offset=how.pile_offset,
        )
        counter, piles = draws.advanced(at.counter, at.piles, (step,))
        move = protocodec.decode_union(outcome, chance.OUTCOME_TYPES)
        decision = self._host.decide_on(
            at.decision.state, chance.CHANCE_SEAT, move, self._position_seats, self._spectator
        )
        self._emit(decision.events, step.events)
        return _Resolving(decision, counter, piles)

    def may_stop(self, refused: ServiceError) -> bool:
        # The match resolves it instead, and meets the same refusal if it is one.
        metrics.CHANCE_LEFT.labels(refused.reason).inc()
        log.info("chance_left_to_match", match_id=self._match_id, reason=refused.reason)
        return True


def register(server: grpc.aio.Server, host: EngineHost, chance: ChanceResolver | None = None) -> list[str]:
    pb_grpc.add_RulesServiceServicer_to_server(RulesServicer(host, chance), server)
    return [pb.DESCRIPTOR.services_by_name["RulesService"].full_name]
