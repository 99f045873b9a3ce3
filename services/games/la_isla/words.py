"""La Isla in words: every card by what it does, colours, animals, symbols, phases, the
island's legend, and a template for every action and event
(services/games/common/words.py has the syntax).

A card has no printed title in the stand-in deck, so it is named by its A function
("3 points on white"); its one-line text says all three parts (rulebook: Acción A, B, D).
"""

from __future__ import annotations

from functools import cache

from services.games.common.words import (
    PLATFORM_EVENTS,
    GameWords,
    LegendEntry,
    Term,
    counted_table,
    enum_table,
    seat_table,
)
from services.games.la_isla import content
from services.games.la_isla.content import (
    Animal,
    Card,
    Colour,
    ExtraExplorer,
    ExtraMarkerMove,
    ExtraSlot,
    Function,
    IncomeMarker,
    IncomeResource,
    Joker,
    LargerDraw,
    PlacementDiscount,
    PlacementMarker,
    PlacementPoints,
    PlacementResource,
    SpaceFilter,
    Symbol,
)
from services.games.la_isla.events import Step

MAX_SEATS = 4
SYMBOLS = {
    Symbol.TENT: "▲", Symbol.HAT: "♠", Symbol.ROPE: "∞", Symbol.BOTTLE: "♦", Symbol.BACKPACK: "■",
}


def _animal(animal: Animal) -> str:
    return animal.value.replace("_", " ")


def _where(where: SpaceFilter) -> str:
    if where.colour is not None and where.symbol is not None:
        return f"{where.colour.value} {where.symbol.value}"
    if where.colour is not None:
        return where.colour.value
    return where.symbol.value if where.symbol is not None else "any space"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def function_name(function: Function) -> str:
    """The A function in a few words: the card's name."""
    match function:
        case PlacementPoints(where=where, points=points):
            return f"{_plural(points, 'point', 'points')} on {_where(where)}"
        case PlacementResource(where=where, count=count):
            return f"{_plural(count, 'resource', 'resources')} on {_where(where)}"
        case PlacementDiscount(where=where, cost=cost):
            return f"{_where(where)} spaces cost {cost}"
        case PlacementMarker(where=where, steps=steps):
            return f"{_plural(steps, 'marker step', 'marker steps')} on {_where(where)}"
        case IncomeResource(colour=colour, count=count):
            what = colour.value if colour is not None else "any"
            return f"income: +{count} {what}"
        case IncomeMarker(animal=animal, steps=steps):
            return f"income: {_animal(animal)} +{steps}"
        case ExtraMarkerMove(steps=steps):
            return f"animals: +{_plural(steps, 'step', 'steps')}"
        case Joker(colour=colour):
            return f"{colour.value} pays for any"
        case ExtraExplorer():
            return "extra explorer"
        case ExtraSlot():
            return "extra cardholder slot"
        case LargerDraw(extra=extra):
            return f"draw {extra} more"
    raise ValueError(f"no words for {function!r}")


def function_text(function: Function) -> str:
    """The A function in one sentence."""
    match function:
        case PlacementPoints(where=where, points=points):
            return f"placing or moving an explorer onto {_where(where)} scores {points}"
        case PlacementResource(where=where, count=count):
            return f"placing onto {_where(where)} gives {_plural(count, 'resource', 'resources')} of your choice"
        case PlacementDiscount(where=where, cost=cost):
            return f"placing onto {_where(where)} costs {cost} resources instead of 2"
        case PlacementMarker(where=where, steps=steps):
            return f"placing onto {_where(where)} lets you move any marker {_plural(steps, 'step', 'steps')}"
        case IncomeResource(colour=colour, count=count):
            what = f"{colour.value} resource" if colour is not None else "resource of your choice"
            return f"phase B: {count} more {what}"
        case IncomeMarker(animal=animal, steps=steps):
            return f"phase B: you may move the {_animal(animal)} marker {_plural(steps, 'step', 'steps')}"
        case ExtraMarkerMove(steps=steps):
            return f"phase D: move the D card's marker {_plural(steps, 'more step', 'more steps')}"
        case Joker(colour=colour):
            return f"{colour.value} resources pay for a space of any colour"
        case ExtraExplorer():
            return "when placed: one more explorer from the supply (kept when covered)"
        case ExtraSlot():
            return "when placed: one more cardholder slot (kept when covered)"
        case LargerDraw(extra=extra):
            return f"card phase: draw {extra} more cards, assign three, discard the rest"
    raise ValueError(f"no words for {function!r}")


def _card(card: Card) -> Term:
    text = (f"A: {function_text(card.function)} · B: a {card.resource.value} resource · "
            f"D: moves the {_animal(card.animal)} · deck {card.value}")
    return Term(function_name(card.function), text)


def _space_name(spec: content.SpaceSpec) -> str:
    place = "the centre" if spec.slot is None else f"tooth {spec.slot + 1}"
    return f"{place}, space {int(spec.local.removeprefix('s')) + 1}"


def _tables() -> dict[str, dict[str, Term]]:
    game = content.load()
    colours = [c.value for c in Colour]
    animals = [a.value for a in Animal]
    return {
        "seat": seat_table(MAX_SEATS),
        "card": {card.id: _card(card) for card in game.cards},
        "card_resource": {card.id: Term(card.resource.value) for card in game.cards},
        "card_animal": {card.id: Term(_animal(card.animal)) for card in game.cards},
        "colour": enum_table("COLOUR", colours),
        "animal": enum_table("ANIMAL", animals),
        "symbol": enum_table("SYMBOL", [s.value for s in Symbol]),
        "step": enum_table("STEP", [s.value for s in Step], {
            "assign": "cards", "income": "income", "animals": "animal moves",
        }),
        "phase": enum_table("PHASE", ["setup", "draw", "assign", "income", "explore", "animals", "over"], {
            "draw": "drawing cards", "assign": "assigning cards (A, B, D)", "income": "income (B)",
            "explore": "exploring (C)", "animals": "animal markers (D)", "over": "game over",
        }),
        "slot": counted_table("", 8, shift=1),
        "space": {str(i): Term(_space_name(s)) for i, s in enumerate(game.island.spaces)},
        "region": {str(i): Term(f"region of {r.value}") for i, r in enumerate(game.island.regions)},
        "reason": {
            "end_threshold": Term("the animal markers reached the end threshold"),
            "cards_ran_out": Term("the cards ran out"),
        },
    }


ACTIONS = {
    "assign_cards": "{a:card} → slot {slot:slot}; take {b:card_resource}; move the {d:card_animal}",
    "collect_income": "Collect income{?colours|: {colours:colour}}{?markers|, moving the {markers:animal}}",
    "place_explorer": "Place an explorer on {space:space}{?payment|, paying {payment:colour}}",
    "move_explorer": "Move an explorer from {source:space} to {space:space}{?payment|, paying {payment:colour}}",
    "take_resource": "Take a {colour:colour} resource instead",
    "choose_resource": "Take {colour:colour} as the reward",
    "choose_marker": "Move the {animal:animal} marker",
    "decline_marker": "Move no marker",
    "advance_markers": "Move the animal markers{?extra| ({extra} extra {extra|step|steps})}",
}

EVENTS = {
    "island_built": "The island was laid out",
    "tiles_placed": "Animal tiles were placed on {tiles|region|regions}",
    "large_tiles_dealt": "Large animal tiles were dealt: {animals:animal}",
    "draw_pile_shuffled": "A new draw pile of {size|card|cards}{?from_discard| (the discards reshuffled)}",
    "cards_drawn_to_hand": "{seat:seat} drew {cards:card}",
    "hand_refilled": "{seat:seat} drew {count|card|cards}",
    "cards_assigned": "{seat:seat} chose {a:card} (slot {slot:slot}), {b:card_resource} and the {d:card_animal}",
    "income_chosen": "{seat:seat} chose income{?colours| {colours:colour}}",
    "marker_moves_chosen": "{seat:seat} chose {extra} extra marker {extra|move|moves}",
    "choice_made": "{seat:seat} has chosen ({step:step})",
    "functions_inserted": "The new cards went into the cardholders",
    "income_collected": "Income was collected",
    "explorer_placed": "{seat:seat} {?#source|moved an explorer from {source:space} to|placed an explorer on} "
                       "{space:space}{?payment|, paying {payment:colour}}",
    "region_claimed": "{seat:seat} claimed a {animal:animal} tile ({points|point|points})",
    "placement_rewarded": "{seat:seat} earned {points|point|points}"
                          "{?resources|, {resources|resource|resources} to choose}"
                          "{?markers|, {markers|marker move|marker moves}}",
    "resource_gained": "{seat:seat} took a {colour:colour} resource",
    "marker_declined": "{seat:seat} moved no marker",
    "marker_advanced": "{seat:seat} moved the {animal:animal} marker ({points|point|points})",
    "turn_ended": "{seat:seat} finished exploring",
    "animals_advanced": "The animal markers moved",
    "round_ended": "Round {round} is over (areas {area_sum}); {start:seat} starts the next",
    "game_ended": "The game is over",
    **PLATFORM_EVENTS,
}


def _legend() -> tuple[LegendEntry, ...]:
    colours = (
        LegendEntry("terrain", "white", "white landscape", "paid with white resources"),
        LegendEntry("terrain", "yellow", "yellow landscape", "paid with yellow resources"),
        LegendEntry("terrain", "green", "green landscape", "paid with green resources"),
        LegendEntry("terrain", "brown", "brown landscape", "paid with brown resources"),
        LegendEntry("terrain", "grey", "grey landscape", "paid with grey resources"),
    )
    symbols = tuple(LegendEntry("icon", glyph, symbol.value, "a symbol some cards score or reward")
                    for symbol, glyph in SYMBOLS.items())
    return (
        *colours,
        *symbols,
        LegendEntry("icon", "◆ Xn", "animal tile", "a jungle region's animal and value;"
                    " surround it to claim it"),
        LegendEntry("icon", "figure", "explorer", "a player's explorer, in the seat's colour"),
        LegendEntry("icon", "×n", "track area", "each animal marker's area multiplies its sets at the end"),
    )


@cache
def words() -> GameWords:
    return GameWords(
        game="la_isla",
        title="La Isla",
        summary="Explore the island, claim its rare animals and move their markers up the track.",
        tables=_tables(),
        actions=ACTIONS,
        events=EVENTS,
        legend=_legend(),
    )
