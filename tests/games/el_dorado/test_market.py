"""Buying (RB p.4): coins, one card a turn, the vacant-slot rule, items spent."""

from __future__ import annotations

from dataclasses import replace

from services.games.el_dorado import ENGINE, content
from services.games.el_dorado import events as ev
from services.games.el_dorado.actions import BuyCard, ClearSpace, EndTurn, MoveTo, PlayAction, PlayCard, SpendCard
from services.games.el_dorado.board import Hex
from services.games.el_dorado.content import Symbol, Terrain
from services.games.el_dorado.state import State
from tests.games.el_dorado.builders import J, R, W, find_path, position, refusal, run


def spend(state, *cards: str):  # type: ignore[no-untyped-def]
    return run(state, 0, *(SpendCard(c) for c in cards))


def test_johns_purchase() -> None:
    """RB p.4: Traveler 1 + Photographer 2 + Explorer 1/2 + Sailor 1/2 = 4 coins buy the Transmitter."""
    state = position(hands={0: ("traveler", "photographer", "explorer", "sailor")})
    state, events = spend(state, "traveler", "photographer", "explorer", "sailor")
    assert [e.halves for e in events] == [2, 4, 1, 1]
    state, events = run(state, 0, BuyCard("transmitter"))
    assert events == [ev.CardBought(0, "transmitter", False)]
    assert "transmitter" in state.players[0].discard and "transmitter" not in state.players[0].hand
    assert state.turn.coins == 0


def test_only_one_purchase_a_turn() -> None:
    state, _ = spend(position(hands={0: ("traveler", "photographer", "explorer")}), "traveler")
    state, _ = run(state, 0, BuyCard("scout"))
    assert refusal(state, 0, SpendCard("photographer")) == "el_dorado.market.one_purchase"
    assert refusal(state, 0, BuyCard("scout")) == "el_dorado.market.one_purchase"


def test_cannot_buy_without_enough_coins() -> None:
    state, _ = spend(position(hands={0: ("traveler",)}), "traveler")
    assert refusal(state, 0, BuyCard("trailblazer")) == "el_dorado.market.not_enough_coins"


def test_pile_beside_the_board_needs_a_vacant_slot() -> None:
    state, _ = spend(position(hands={0: ("treasure_chest",)}), "treasure_chest")
    assert refusal(state, 0, BuyCard("compass")) == "el_dorado.market.not_available"


def test_annes_compass_moves_its_pile_onto_the_vacant_slot() -> None:
    """RB p.6: with a slot vacant, Anne buys a Compass from beside the board with 3 coins."""
    sold_out = content.market_types().index("scout")
    state = position(hands={0: ("journalist",)})
    state = replace(state, stock=tuple(0 if i == sold_out else n for i, n in enumerate(state.stock)),
                    board=tuple(c for c in state.board if c != "scout"))
    state, _ = spend(state, "journalist")
    state, events = run(state, 0, BuyCard("compass"))
    assert events == [ev.CardBought(0, "compass", True)]
    assert "compass" in state.board and state.turn.coins == 0
    assert state.stock[content.market_types().index("compass")] == 2


def test_sold_out_pile_frees_its_slot() -> None:
    index = content.market_types().index("scout")
    state = position(hands={0: ("traveler",)})
    state = replace(state, stock=tuple(1 if i == index else n for i, n in enumerate(state.stock)))
    state, _ = spend(state, "traveler")
    state, _ = run(state, 0, BuyCard("scout"))
    assert "scout" not in state.board and len(state.board) == 5


def test_item_spent_for_its_value_is_removed() -> None:
    state, events = spend(position(hands={0: ("treasure_chest",)}), "treasure_chest")
    assert events == [ev.CardSpent(0, "treasure_chest", 8, True)]
    assert state.players[0].removed == ("treasure_chest",)


def test_item_spent_as_half_a_coin_is_discarded() -> None:
    state, events = spend(position(hands={0: ("giant_machete",)}), "giant_machete")
    assert events == [ev.CardSpent(0, "giant_machete", 1, False)]
    assert state.players[0].played == ("giant_machete",)


def test_joker_pays_its_power() -> None:
    _, events = spend(position(hands={0: ("adventurer",)}), "adventurer")
    assert events == [ev.CardSpent(0, "adventurer", 4, False)]


def test_action_card_pays_half_a_coin() -> None:
    _, events = spend(position(hands={0: ("native",)}), "native")
    assert events == [ev.CardSpent(0, "native", 1, False)]


def test_annes_whole_turn() -> None:
    """RB p.6: Prop Plane as paddle over paddle 2 and paddle 1 (last power lost, plane removed),
    then 3 coins buy a Compass from beside the board into a vacant slot; the last coin is lost."""
    path = find_path([None, (W, 2), (W, 1)], course="first_game")
    sold_out = content.market_types().index("scout")
    state = position(hands={0: ("prop_plane", "journalist", "explorer", "sailor")}, pieces={0: (path[0],)})
    state = replace(state, stock=tuple(0 if i == sold_out else n for i, n in enumerate(state.stock)),
                    board=tuple(c for c in state.board if c != "scout"))
    state, events = run(state, 0, PlayCard("prop_plane", Symbol.PADDLE, 0), MoveTo(*path[1]), MoveTo(*path[2]))
    assert events[:3] == [
        ev.CardPlayed(0, "prop_plane", Symbol.PADDLE, 0, 4, True),
        ev.PieceMoved(0, 0, *path[1], 2),
        ev.PieceMoved(0, 0, *path[2], 1),
    ]
    state, events = run(state, 0, SpendCard("journalist"), BuyCard("compass"))
    assert events[-1] == ev.CardBought(0, "compass", True) and events[0] == ev.MoveEnded(0)
    state, events = run(state, 0, EndTurn())
    assert events == [ev.TurnEnded(0, ("journalist",))]
    assert state.players[0].removed == ("prop_plane",)
    assert state.players[0].discard == ("compass", "journalist")


# Fase 1: "Primero, juega a las cartas que quieras usar para moverte. Utilice el resto de sus
# tarjetas para comprar hasta 1 tarjeta nueva." Moving comes first; buying uses the rest.
MOVING_FIRST = "el_dorado.movement.after_buying"


def _bought_next_to(terrain: Terrain, power: int, hand: tuple[str, ...]) -> tuple[State, list[Hex]]:
    """Seat 0 stands next to a `terrain` `power` space and has just bought a Scout with a Traveler."""
    path = find_path([None, (terrain, power)])
    state = position(hands={0: ("traveler", *hand)}, pieces={0: (path[0],)})
    state, _ = run(state, 0, SpendCard("traveler"), BuyCard("scout"))
    assert state.turn.bought
    return state, path


def test_no_piece_moves_after_the_turns_purchase() -> None:
    state, path = _bought_next_to(J, 1, ("explorer", "explorer"))
    assert refusal(state, 0, PlayCard("explorer", Symbol.MACHETE, 0)) == MOVING_FIRST
    assert not [a for a in ENGINE.legal_actions(state, 0) if isinstance(a, PlayCard)]
    assert state.players[0].pieces == (path[0],)


def test_no_rubble_is_cleared_after_the_turns_purchase() -> None:
    state, path = _bought_next_to(R, 1, ("explorer",))
    assert refusal(state, 0, ClearSpace(0, *path[1], ("explorer",))) == MOVING_FIRST
    assert not [a for a in ENGINE.legal_actions(state, 0) if isinstance(a, ClearSpace)]


def test_the_native_moves_no_piece_after_the_turns_purchase() -> None:
    state, _ = _bought_next_to(J, 1, ("native",))
    assert refusal(state, 0, PlayAction("native")) == "el_dorado.action.no_effect"


def test_spending_a_card_begins_buying_so_no_piece_moves_after_it() -> None:
    """The cards spent for the purchase are "el resto": moving is over once buying has begun."""
    path = find_path([None, (J, 1)])
    state = position(hands={0: ("traveler", "explorer")}, pieces={0: (path[0],)})
    state, _ = run(state, 0, SpendCard("traveler"))
    assert not state.turn.bought
    assert refusal(state, 0, PlayCard("explorer", Symbol.MACHETE, 0)) == MOVING_FIRST


def test_moving_then_buying_in_the_rulebooks_order_is_accepted() -> None:
    path = find_path([None, (J, 1)])
    state = position(hands={0: ("traveler", "explorer")}, pieces={0: (path[0],)})
    state, _ = run(state, 0, PlayCard("explorer", Symbol.MACHETE, 0), MoveTo(*path[1]))
    state, events = run(state, 0, SpendCard("traveler"), BuyCard("scout"))
    assert events[-1] == ev.CardBought(0, "scout", False)
    assert state.players[0].pieces == (path[1],)
