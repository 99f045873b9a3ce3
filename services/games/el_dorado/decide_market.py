"""Buying: coins, at most one card a turn, the vacant-slot rule, the Transmitter (RB p.4, p.8)."""

from __future__ import annotations

from services.games.el_dorado import actions as act
from services.games.el_dorado import content
from services.games.el_dorado import events as ev
from services.games.el_dorado.content import Symbol
from services.games.el_dorado.decide_move import _card
from services.games.el_dorado.moves import end_move
from services.games.el_dorado.rules import available, coin_halves, refuse
from services.games.el_dorado.state import State


def _not_bought(state: State) -> None:
    if state.turn.bought:
        raise refuse("market.one_purchase", "you already bought a card this turn")


def spend_card(state: State, seat: int, a: act.SpendCard) -> list[ev.Event]:
    """Coin and joker cards pay their power, others 1/2; a used item leaves the game (RB p.4)."""
    _not_bought(state)
    spec = _card(state, seat, a.card)
    halves, used = coin_halves(spec)
    spent = ev.CardSpent(seat, a.card, halves, spec.single_use and used)
    return [*end_move(state, seat), spent]


def spend_token(state: State, seat: int, a: act.SpendToken) -> list[ev.Event]:
    """A coin cave token pays its power (RB p.7)."""
    _not_bought(state)
    spec = content.tokens().get(a.token)
    if spec is None or spec.symbol is not Symbol.COIN or a.token not in state.players[seat].tokens:
        raise refuse("caves.no_such_token", "you hold no such coin token")
    return [*end_move(state, seat), ev.TokenSpent(seat, a.token, 2 * spec.power)]


def buy_card(state: State, seat: int, a: act.BuyCard) -> list[ev.Event]:
    """Buy one affordable card; a pile from beside the board needs a vacant slot (RB p.4)."""
    _not_bought(state)
    if not available(state, a.card, free=False):
        raise refuse("market.not_available", f"{a.card} cannot be bought now")
    cost = content.cards()[a.card].cost
    if state.turn.coins < 2 * cost:
        raise refuse("market.not_enough_coins", f"{a.card} costs {cost}")
    left = state.stock[content.market_types().index(a.card)] - 1
    return [ev.CardBought(seat, a.card, a.card not in state.board and left > 0)]


def take_card(state: State, seat: int, a: act.TakeCard) -> list[ev.Event]:
    """The Transmitter takes any card free, even from beside a full board (RB p.8)."""
    if not available(state, a.card, free=True):
        raise refuse("market.not_available", f"no {a.card} left")
    return [ev.ChoiceClosed(), ev.CardTaken(seat, a.card)]
