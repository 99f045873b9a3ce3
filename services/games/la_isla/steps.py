"""Simultaneous secret steps: card assignment with action A, action B, action D.

Each seat's choice is an event only that seat sees; once every asked seat has
chosen, one public event reveals them all (rulebook: Fases de acción).
"""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement, permutations

from services.games.common.engine import IllegalAction
from services.games.la_isla.actions import AdvanceMarkers, AssignCards, CollectIncome
from services.games.la_isla.content import COLOURS, ExtraExplorer, ExtraSlot
from services.games.la_isla.events import (
    AnimalsAdvanced,
    CardsAssigned,
    Event,
    FunctionsInserted,
    Income,
    IncomeChosen,
    IncomeCollected,
    Insertion,
    MarkerAdvanced,
    MarkerMovesChosen,
    SeatCard,
)
from services.games.la_isla.rules import (
    CONTENT,
    SUPPLY_EXPLORERS,
    advance,
    extra_moves,
    income_choices,
    income_fixed,
    income_markers,
    visible,
)
from services.games.la_isla.state import Phase, Player, State


def legal_slots(player: Player, card: str) -> tuple[int, ...]:
    """Slots the A card may go to (Acción A): a free slot first, never a duplicate function."""
    function = CONTENT.card(card).function
    tops = [CONTENT.card(stack[-1]).function if stack else None for stack in player.slots]
    if function in tops:
        return (tops.index(function),)  # covering the identical card is the only way to show it
    free = [i for i, stack in enumerate(player.slots) if not stack]
    return (free[0],) if free else tuple(range(len(player.slots)))


def assignments(player: Player) -> tuple[AssignCards, ...]:
    """Every way to put three hand cards under A, B and D, with every legal A slot."""
    slots = {card: legal_slots(player, card) for card in set(player.hand)}  # per card, not per permutation
    return tuple(AssignCards(a, b, d, slot) for a, b, d in permutations(player.hand, 3) for slot in slots[a])


def incomes(player: Player) -> tuple[CollectIncome, ...]:
    """Every phase B choice: colours for resources of choice, any subset of marker moves."""
    functions = visible(player)
    markers = income_markers(functions)
    subsets = tuple(dict.fromkeys(m for k in range(len(markers) + 1) for m in combinations(markers, k)))
    colours = combinations_with_replacement(COLOURS, income_choices(functions))
    return tuple(CollectIncome(c, m) for c in colours for m in subsets)


def animal_moves(player: Player) -> tuple[AdvanceMarkers, ...]:
    """Every phase D choice: how many extra moves to use (they are optional)."""
    return tuple(AdvanceMarkers(extra) for extra in range(extra_moves(visible(player)) + 1))


def asked(state: State) -> tuple[int, ...]:
    """Seats that still owe a secret choice; a seat with a single option is not asked."""
    if state.phase is Phase.ASSIGN:
        return tuple(s for s in state.order() if state.player(s).assignment is None)
    options = {Phase.INCOME: incomes, Phase.ANIMALS: animal_moves}.get(state.phase)
    if options is None:
        return ()
    return tuple(s for s in state.order() if state.player(s).choice is None and len(options(state.player(s))) > 1)


def choose(state: State, seat: int, action: AssignCards | CollectIncome | AdvanceMarkers) -> Event:
    """The secret event recording `seat`'s choice, or a refusal."""
    player = state.player(seat)
    if isinstance(action, AssignCards):
        if len({action.a, action.b, action.d}) < 3 or not {action.a, action.b, action.d} <= set(player.hand):
            raise IllegalAction("la_isla.cards.not_in_hand", "assign three different cards from your hand")
        if action.slot not in legal_slots(player, action.a):
            raise IllegalAction("la_isla.a.slot", "a free slot first, and never two identical functions")
        return CardsAssigned(seat, action.a, action.b, action.d, action.slot)
    if isinstance(action, CollectIncome):
        if state.phase is not Phase.INCOME or action not in incomes(player):
            raise IllegalAction("la_isla.b.choice", "not a choice your visible functions offer")
        return IncomeChosen(seat, action.colours, action.markers)
    if state.phase is not Phase.ANIMALS or action not in animal_moves(player):
        raise IllegalAction("la_isla.d.extra_moves", "more extra moves than your functions give")
    return MarkerMovesChosen(seat, action.extra)


def reveal_a(state: State) -> FunctionsInserted:
    """Action A for everybody: cards into slots, explorers and slots gained (Acción A)."""
    insertions = []
    for seat in state.order():
        p = state.player(seat)
        assert p.assignment is not None
        function = CONTENT.card(p.assignment.a).function
        explorer = isinstance(function, ExtraExplorer) and p.explorers_gained < SUPPLY_EXPLORERS
        insertions.append(Insertion(seat, p.assignment.a, p.assignment.slot, explorer, isinstance(function, ExtraSlot)))
    return FunctionsInserted(tuple(insertions))


def reveal_b(state: State) -> IncomeCollected:
    """Action B for everybody: the card's resource, extra income, marker moves (Acción B)."""
    markers = list(state.markers)
    result: list[Income] = []
    moves: list[MarkerAdvanced] = []
    for seat in state.order():
        p = state.player(seat)
        assert p.assignment is not None
        choice = p.choice if isinstance(p.choice, CollectIncome) else incomes(p)[0]
        card = CONTENT.card(p.assignment.b)
        result.append(Income(seat, card.id, (card.resource, *income_fixed(visible(p)), *choice.colours)))
        moves.extend(advance(state, markers, seat, animal) for animal in choice.markers)
    return IncomeCollected(tuple(result), tuple(moves))


def reveal_d(state: State) -> AnimalsAdvanced:
    """Action D for everybody: the D card's marker, plus extra moves (Acción D)."""
    markers = list(state.markers)
    cards: list[SeatCard] = []
    moves: list[MarkerAdvanced] = []
    discarded: list[SeatCard] = []
    for seat in state.order():
        p = state.player(seat)
        assert p.assignment is not None
        extra = p.choice.extra if isinstance(p.choice, AdvanceMarkers) else 0
        card = CONTENT.card(p.assignment.d)
        cards.append(SeatCard(seat, card.id))
        moves.extend(advance(state, markers, seat, card.animal) for _ in range(1 + extra))
        discarded.extend(SeatCard(seat, c) for c in p.hand)
    return AnimalsAdvanced(tuple(cards), tuple(moves), tuple(discarded))
