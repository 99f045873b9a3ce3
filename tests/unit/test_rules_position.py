"""The rules' GetPosition answers, for every seat and the spectator, exactly what
GetView and ListLegalActions answer one by one."""

from __future__ import annotations

import pytest
from tabletop.rules.v1 import rules_service_pb2 as rpb

from services.common.errors import InvalidArgument
from services.dice.playout import play
from services.games import registry
from services.rules.app import EngineHost
from services.rules.servicer import RulesServicer, pack

STATES_PER_GAME = 25


def _states(game: str) -> tuple[EngineHost, int, list[bytes]]:
    """Some encoded states of a seeded playout of `game`, from the start on."""
    host = EngineHost(registry.game(game))
    sample = host.entry.declaration.samples[0]
    seen: list[object] = []
    played = play(host.engine, dict(sample.config), sample.seats, sample.seed, max_steps=STATES_PER_GAME,
                  check=lambda state, event: seen.append(state))
    return host, sample.seats, [host.encode(s) for s in (played.initial, *seen)]


@pytest.mark.parametrize("game", registry.available())
async def test_a_position_is_every_viewers_view_and_legal_actions(game: str) -> None:
    host, seats, states = _states(game)
    servicer = RulesServicer(host)
    movers = 0
    for data in states:
        state = rpb.EngineState(game=game, data=data)
        position = (await servicer.GetPosition(rpb.GetPositionRequest(state=state, seat_count=seats), None)).position
        assert [p.seat for p in position.seats] == list(range(seats))
        for part in position.seats:
            view = await servicer.GetView(rpb.GetViewRequest(state=state, viewer=part.seat), None)
            legal = await servicer.ListLegalActions(rpb.ListLegalActionsRequest(state=state, seat=part.seat), None)
            assert part.view == view.view
            assert list(part.legal_actions) == list(legal.actions)
            movers += bool(part.legal_actions)
        assert position.spectator_view == (await servicer.GetView(rpb.GetViewRequest(state=state), None)).view
    assert movers, "the playout asked some seat to act"


@pytest.mark.parametrize("game", registry.available())
async def test_a_position_is_byte_for_byte_the_message_built_field_by_field(game: str) -> None:
    """The servicer writes legal actions as ready wire bytes and packs views in place; what
    it answers must be exactly the message the codec's own messages make, element by element."""
    host, seats, states = _states(game)
    servicer = RulesServicer(host)
    for data in [*states, *states]:  # the second time round, every action comes from the cache
        known = host.position(data, seats)
        expected = rpb.Position(
            seats=[
                rpb.SeatPosition(
                    seat=part.seat,
                    view=pack(host.codec.encode_view(part.view)),
                    legal_actions=[pack(host.codec.encode_action(a)) for a in part.legal_actions],
                )
                for part in known.seats
            ]
        )
        if known.spectator_view is not None:
            expected.spectator_view.CopyFrom(pack(host.codec.encode_view(known.spectator_view)))
        answered = (await servicer.GetPosition(rpb.GetPositionRequest(state=rpb.EngineState(game=game, data=data),
                                                                      seat_count=seats), None)).position
        assert answered.SerializeToString(deterministic=True) == expected.SerializeToString(deterministic=True)
        assert answered == expected


async def test_a_position_of_an_impossible_seat_count_is_refused() -> None:
    host, _, states = _states(registry.available()[0])
    state = rpb.EngineState(game=host.entry.name, data=states[0])
    with pytest.raises(InvalidArgument):
        await RulesServicer(host).GetPosition(rpb.GetPositionRequest(state=state, seat_count=0), None)


@pytest.mark.parametrize("game", registry.available())
async def test_a_decision_asked_for_it_carries_the_position_unless_chance_is_pending(game: str) -> None:
    host, seats, states = _states(game)
    servicer = RulesServicer(host)
    decided = 0
    for data in states:
        state = rpb.EngineState(game=game, data=data)
        turn = host.engine.to_move(host.state(data))
        if not turn.seats:
            continue
        position = (await servicer.GetPosition(rpb.GetPositionRequest(state=state, seat_count=seats), None)).position
        action = position.seats[turn.seats[0]].legal_actions[0]
        request = rpb.DecideRequest(state=state, seat=turn.seats[0], action=action, position_seats=seats)
        decision = await servicer.Decide(request, None)
        if decision.turn.HasField("chance"):
            assert not decision.HasField("position")
        else:
            after = rpb.GetPositionRequest(state=decision.state, seat_count=seats)
            whole = (await servicer.GetPosition(after, None)).position
            assert list(decision.position.seats) == list(whole.seats)
            assert not decision.position.HasField("spectator_view"), "the spectator only when asked"
            request.position_spectator = True
            assert (await servicer.Decide(request, None)).position == whole
            request.position_spectator = False
            decided += 1
        request.position_seats = 0
        assert not (await servicer.Decide(request, None)).HasField("position"), "only when asked"
    assert decided, "some decision left players to act"
