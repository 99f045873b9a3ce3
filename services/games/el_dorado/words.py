"""The Quest for El Dorado in words: card, token and course names, phases, the map legend,
and a template for every action and event (services/games/common/words.py has the syntax).

Built from the game's content (services/games/el_dorado/content.py), so a changed card
list changes the words with it. Rulebook references: "RB p.N" as in RULES.md.
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
from services.games.el_dorado import content
from services.games.el_dorado.content import CardSpec, EffectKind, Symbol, Terrain, TokenSpec
from services.games.el_dorado.state import Choice

MAX_SEATS = 4
# Coins are counted in halves: a card used for coins that shows no coin is worth half a coin.
MAX_HALVES = 60

EFFECTS = {
    EffectKind.DRAW: "draw {n}",
    EffectKind.REMOVE: "remove up to {n} hand cards from the game",
    EffectKind.TAKE_FREE: "take a market card for free",
    EffectKind.NATIVE_MOVE: "move one space ignoring its requirement",
    EffectKind.REPLACE_HAND: "set hand cards aside and draw new ones (up to {n})",
    EffectKind.KEEP_ITEM: "keep a used item instead of removing it",
    EffectKind.PASS_OCCUPIED: "pass through spaces other pieces hold",
    EffectKind.CHANGE_SYMBOL: "play a card as another symbol",
}

TERRAIN = {
    Terrain.MACHETE: ("⚔", "jungle (machete)", "enter with machete power equal to the number of symbols"),
    Terrain.PADDLE: ("≈", "water (paddle)", "enter with paddle power equal to the number of symbols"),
    Terrain.COIN: ("●", "village (coin)", "enter with coin power equal to the number of symbols"),
    Terrain.RUBBLE: ("▲", "rubble", "enter by giving up as many hand cards as symbols (RB p.3)"),
    Terrain.BASECAMP: ("⛺", "base camp", "enter by removing as many hand cards from the game (RB p.3)"),
    Terrain.MOUNTAIN: ("⛰", "mountain", "impassable"),
    Terrain.START: ("1-4", "start space", "where the expeditions set out"),
    Terrain.EL_DORADO: ("★", "El Dorado", "reach it to trigger the final round (RB p.5)"),
}


def _effects(effects: tuple[content.Effect, ...]) -> str:
    return "; ".join(EFFECTS[e.kind].format(n=e.n) for e in effects)


def _card_text(card: CardSpec) -> str:
    kind = "action" if card.symbol is Symbol.ACTION else f"{card.symbol.value} {card.power}"
    parts = [kind, f"costs {card.cost}" if card.cost else "starting card"]
    if card.effects:
        parts.append(_effects(card.effects))
    if card.single_use:
        parts.append("used once, then removed")
    return " · ".join(parts)


def _token_name(token: TokenSpec) -> str:
    if token.symbol is Symbol.ACTION:
        return token.id.replace("_", " ").replace(" 1", "").capitalize() + " token"
    return f"{token.symbol.value} {token.power} token"


def _coins(halves: int) -> str:
    whole, half = divmod(halves, 2)
    amount = (str(whole) if whole else "") + ("½" if half else "") or "0"
    return f"{amount} coin" if halves <= 2 and halves != 0 else f"{amount} coins"


def _tables() -> dict[str, dict[str, Term]]:
    cards = content.cards()
    tokens = content.tokens()
    return {
        "seat": seat_table(MAX_SEATS),
        "card": {card.id: Term(card.name, _card_text(card)) for card in cards.values()},
        "token": {t.id: Term(_token_name(t), _effects(t.effects) or "moves like a card, then leaves the game")
                  for t in tokens.values()},
        "symbol": enum_table("SYMBOL", [s.value for s in Symbol], {"joker": "any symbol", "action": "action"}),
        "phase": enum_table("PHASE", ["setup", "play", "cleanup", "draw", "over"], {
            "play": "playing cards", "cleanup": "discarding", "draw": "drawing up", "over": "game over",
        }),
        "choice": enum_table("CHOICE", [c.value for c in Choice], {
            "none": "nothing", "take": "take a market card for free", "native": "move with the Native",
            "remove": "remove hand cards from the game", "set_aside": "set hand cards aside",
        }),
        "piece": counted_table("piece ", 2, shift=1),
        "halves": {str(h): Term(_coins(h)) for h in range(MAX_HALVES + 1)},
        "blockade": {str(b.id): Term(f"{b.terrain.value} blockade {b.power}",
                                     f"pay {b.power} {b.terrain.value} to pass; the first to pass keeps it (RB p.5)")
                     for b in content.blockades()},
        "course": {c.id: Term(c.name.split(" (")[0]) for c in content.courses().values()},
        "terrain": {t.value: Term(name, text) for t, (_, name, text) in TERRAIN.items()},
        "reason": {
            "el_dorado": Term("an expedition reached El Dorado"),
            "stopped_by_cap": Term("the round cap was reached"),
            "max_rounds": Term("the round cap was reached"),
        },
    }


ACTIONS = {
    "play_card": "Play {card:card} as {symbol:symbol} for {piece:piece}",
    "play_token": "Play the {token:token} as {symbol:symbol} for {piece:piece}",
    "move_to": "Move to ({q}, {r})",
    "stop_moving": "Stop moving (the rest of this card's power is lost)",
    "break_blockade": "Pay the blockade on join {seam} and keep it",
    "clear_space": "Enter ({q}, {r}) with {piece:piece}, giving up {cards:card}",
    "clear_blockade": "Take the rubble blockade on join {seam}, giving up {cards:card}",
    "spend_card": "Spend {card:card} towards a purchase",
    "spend_token": "Spend the {token:token} towards a purchase",
    "buy_card": "Buy {card:card}",
    "play_action": "Use {card:card}",
    "use_token": "Use the {token:token}",
    "take_card": "Take {card:card} for free",
    "native_move": "Move {piece:piece} to ({q}, {r}) with the Native",
    "remove_card": "Remove {card:card} from the game",
    "set_aside_card": "Set {card:card} aside",
    "done": "Done",
    "end_turn": "End the turn",
    "discard_card": "Discard {card:card}",
}

EVENTS = {
    "blockades_placed": "Blockades were laid on {seams|join|joins}",
    "cave_tokens_shuffled": "Cave tokens were shuffled, {per_cave} on each of {caves|cave|caves}",
    "deck_shuffled": "{seat:seat} shuffled the discard pile into a new draw pile of {cards|card|cards}",
    "cards_drawn_to_hand": "{seat:seat} drew {cards:card}",
    "cards_drawn_unseen": "{seat:seat} drew {count|card|cards}",
    "turn_started": "Round {round}: {seat:seat}'s turn",
    "card_played": "{seat:seat} played {card:card} as {power} {symbol:symbol}{?removed| (used up)}",
    "token_played": "{seat:seat} played the {token:token} as {power} {symbol:symbol}",
    "piece_moved": "{seat:seat} moved {piece:piece} to ({q}, {r})",
    "move_ended": "",
    "piece_stopped": "{?explores|{seat:seat} explores {explores|cave|caves}|}",
    "cave_explored": "{seat:seat} found the {token:token} in a cave",
    "cards_given_up": "{seat:seat} gave up {cards:card}{?removed| (removed from the game)}",
    "blockade_taken": "{seat:seat} broke through the {blockade:blockade}",
    "card_spent": "{seat:seat} put {card:card} towards a purchase ({halves:halves}){?removed| and it is used up}",
    "token_spent": "{seat:seat} spent the {token:token} ({halves:halves})",
    "card_bought": "{seat:seat} bought {card:card}{?to_board| (a new card type comes onto the market board)}",
    "action_played": "{seat:seat} used {card:card}{?removed| (used up)}",
    "token_used": "{seat:seat} used the {token:token}",
    "draw_owed": "",
    "choice_opened": "May {choice:choice} (up to {count})",
    "choice_closed": "",
    "card_taken": "{seat:seat} took {card:card} for free",
    "card_removed": "{seat:seat} removed {card:card} from the game",
    "card_set_aside": "{seat:seat} set {card:card} aside",
    "item_kept": "{seat:seat} kept {card:card} in play",
    "piece_arrived": "{seat:seat}'s {piece:piece} reached El Dorado!{?final_round| The final round begins.}",
    "turn_ended": "{seat:seat} ended the turn",
    "card_discarded": "{seat:seat} discarded {card:card}",
    "hand_kept": "{seat:seat} kept {kept|card|cards} and draws {owed}",
    "game_ended": "The game is over: {reason:reason}",
    **PLATFORM_EVENTS,
}


def _legend() -> tuple[LegendEntry, ...]:
    terrain = tuple(LegendEntry("terrain", glyph, name, text) for glyph, name, text in TERRAIN.values())
    return (
        *terrain,
        LegendEntry("icon", "⚔⚔", "power", "each symbol on a space is one point of power needed to enter it"),
        LegendEntry("icon", "●(n)", "cave", "tokens left in the cave; stop next to it to take one (caves variant)"),
        LegendEntry("icon", "bar", "blockade", "a join between terrain pieces: pay its power to pass (RB p.5)"),
        LegendEntry("icon", "▲ in a colour", "expedition", "a player's explorer, in the seat's colour"),
        LegendEntry("icon", "n left", "market pile", "copies of the card still to buy"),
    )


@cache
def words() -> GameWords:
    return GameWords(
        game="el_dorado",
        title="The Quest for El Dorado",
        summary="Race your expedition through jungle, water and villages to El Dorado, buying better cards on the way.",
        tables=_tables(),
        actions=ACTIONS,
        events=EVENTS,
        legend=_legend(),
    )
