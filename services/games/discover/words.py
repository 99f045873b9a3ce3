"""Discover: Lands Unknown in words: characters, items, projects, enemies, cards and
tiles by name, phases and decisions, the map legend, and a template for every action
and event (services/games/common/words.py has the syntax).

Built from the scenario's content (services/games/discover/content.py). Enemies on the
map are named in events by their serial ("X3"), which only the view ties to a kind: the
`enemy` table is empty here and clients fill it from the view they hold.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from enum import Enum
from functools import cache

from services.games.common.words import (
    PLATFORM_EVENTS,
    GameWords,
    LegendEntry,
    Term,
    enum_table,
    seat_table,
)
from services.games.discover import content
from services.games.discover.content import SCENARIOS
from services.games.discover.state import CombatStage, Phase, Source, Status
from services.games.discover.vocab import DamageType

MAX_SEATS = 4
SIGNED = range(-30, 31)

DECISIONS = {
    "character": "choosing a character",
    "turn": "taking a turn",
    "trade": "trading",
    "trade_answer": "answering a trade offer",
    "share_rewards": "sharing the rewards",
    "free_gather": "a free gather after moving",
    "key_item": "using a key item",
    "pass_leader": "passing the leadership",
    "feed_fire": "feeding the fire",
    "pay_or": "paying or suffering",
    "fighter": "choosing who fights",
    "fighter_vote": "voting for who fights",
    "enemy": "choosing an enemy to fight",
    "monster_step": "choosing where a monster goes",
    "mover": "choosing which monster moves",
    "spawn": "choosing where a monster appears",
    "support": "playing support cards",
    "support_ability": "using a support card",
    "reveal": "revealing the enemy",
    "ready": "rolling or escaping",
    "roll": "rolling the dice",
    "modify": "changing the dice",
    "reroll": "re-rolling a die",
    "retreat": "choosing a retreat space",
}


def _words(value: object) -> str:
    """An effect or ability dataclass in a few words: "gain 2 clean water (self)"."""
    if isinstance(value, Enum):
        return str(value.value).replace("_", " ")
    if isinstance(value, tuple):
        return ", ".join(_words(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        kind = type(value).__name__
        name = "".join(" " + c.lower() if c.isupper() else c for c in kind).strip()
        parts = [_words(getattr(value, f.name)) for f in dataclasses.fields(value)]
        shown = [p for p in parts if p not in ("", "None", "0", "False")]
        return f"{name} ({', '.join(shown)})" if shown else name
    return str(value).replace("_", " ")


def _list(values: Iterable[object]) -> str:
    return "; ".join(_words(v) for v in values)


def _resource(name: str) -> str:
    return name.replace("_", " ")


def _cost(cost: tuple[tuple[str, object], ...]) -> str:
    return ", ".join(f"{amount} {_resource(name)}" for name, amount in cost) or "nothing"


def _tables(game: content.Content) -> dict[str, dict[str, Term]]:
    items = {str(n): Term(i.name, _item_text(i)) for n, i in game.items.items()}
    enemies = {str(n): Term(e.name, f"defence {e.defence}, attack {e.attack if e.attack is not None else '-'}, "
                                    f"health {e.health}" + (" · lethal" if e.lethal else ""))
               for n, e in game.enemies.items()}
    exploration = {str(n): Term(c.name, _list(c.first_time + c.always)) for n, c in game.exploration.items()}
    faces = {r: Term(_resource(r)) for r in game.resources}
    faces |= {f"enemy:{n}": Term(f"a {e.name}") for n, e in game.enemies.items()}
    faces |= {f"explore:{n}": Term(c.name) for n, c in game.exploration.items()}
    sources = {"poison": Term("poison"), "salvage": Term("salvage"), "character": Term("a character ability")}
    sources |= {f"item:{n}": Term(i.name) for n, i in game.items.items()}
    sources |= {f"support:{k}": Term(s.name) for k, s in game.support.items()}
    return {
        "seat": seat_table(MAX_SEATS),
        "character": {str(n): Term(c.name, _list(c.abilities)) for n, c in game.characters.items()},
        "item": {"0": Term("nothing")} | items,
        "project": {str(n): Term(f"{game.items[p.makes_item].name} project",
                                 f"makes the {game.items[p.makes_item].name} for {_cost(p.cost)}")
                    for n, p in game.projects.items()},
        "enemy_kind": {"0": Term("a hidden monster")} | enemies,
        "enemy": {},
        "exploration": exploration,
        "landmark": exploration,
        "night": {k: Term(c.name, _list(c.effects)) for k, c in game.night.items()},
        "threat": {k: Term(c.name, _list(c.effects)) for k, c in game.threats.items()},
        "support": {k: Term(s.name, f"{s.colour}: grey {s.grey:+d}, red {s.red:+d}"
                              + (f", re-roll {s.reroll}" if s.reroll else "")) for k, s in game.support.items()},
        "card": {k: Term(c.name) for k, c in game.night.items()} | {k: Term(c.name) for k, c in game.threats.items()}
        | {k: Term(s.name) for k, s in game.support.items()},
        "quest_action": {k: Term(k.replace("_", " "), f"{a.stamina} stamina, costs {_cost(a.cost)}")
                         for k, a in game.card_actions.items()},
        "stage": {str(n): Term(s.name) for n, s in game.stages.items()},
        "tile": {str(n): Term(f"map tile {n}", t.group) for n, t in game.tiles.items()},
        "slot": {str(s.index): Term(f"map slot {s.index}" if s.group != "start" else "the start tile")
                 for s in game.slots},
        "resource": {r: Term(_resource(r)) for r in game.resources} | {"": Term("nothing")},
        "face": faces,
        "modifier": sources,
        "die": {"grey": Term("grey die"), "red": Term("red die")},
        "deck": {"night": Term("night"), "threats": Term("threat"), "threat": Term("threat"),
                 "support": Term("support"), "projects": Term("project"), "exploration": Term("exploration")},
        "signed": {str(n): Term(f"{n:+d}".replace("-", "−")) for n in SIGNED},
        "damage": enum_table("DAMAGE_TYPE", [d.value for d in DamageType]),
        "combat_stage": enum_table("COMBAT_STAGE", [s.value for s in CombatStage], {
            "reveal": "revealing the enemy", "support": "support cards", "ready": "ready to roll",
            "roll": "rolling", "modify": "changing the dice", "reroll": "re-rolling", "retreat": "retreating",
        }),
        "source": enum_table("SOURCE", [s.value for s in Source]),
        "phase": enum_table("PHASE", [p.value for p in Phase], {"over": "game over"}),
        "status": enum_table("STATUS", [s.value for s in Status], {"won": "escaped", "active": "alive"}),
        "decision": {k: Term(v) for k, v in DECISIONS.items()},
        "terrain": {t: Term(t, "impassable" if cost is None else f"moving in costs {cost} stamina")
                    for t, cost in game.terrain_cost.items()},
    }


def _item_text(item: content.ItemSpec) -> str:
    parts = []
    if item.key_item:
        parts.append("key item")
    if item.passive:
        parts.append(_list(item.passive))
    if item.combat is not None:
        parts.append(f"in combat: grey {item.combat.grey:+d}, red {item.combat.red:+d}")
    if item.action is not None:
        parts.append(f"action ({item.action.stamina} stamina): {_list(item.action.effects)}")
    if item.shelter:
        parts.append("a shelter")
    return " · ".join(parts)


ACTIONS = {
    "choose_character": "Be the {character:character}",
    "pass_leadership": "Pass the leadership to {seat:seat}",
    "gather": "Gather here",
    "skip_gather": "Do not gather",
    "move": "Move to ({to.q}, {to.r})",
    "explore": "Explore {slot:slot}",
    "cook": "Cook{?meat| {meat} meat}{?dirty_water| {dirty_water} dirty water}",
    "restart_fire": "Light the fire again",
    "craft": "Craft the {project:project}",
    "trade": "Trade with {partner:seat}",
    "trade_give": "Offer {?item|the {item:item}|{resource:resource}}",
    "trade_take": "Ask for {?item|the {item:item}|{resource:resource}}",
    "offer_trade": "Propose the trade",
    "end_trade": "Stop trading",
    "accept_trade": "Accept the trade",
    "decline_trade": "Decline the trade",
    "investigate": "Investigate the landmark here",
    "recover": "Recover from {damage:damage}",
    "use_item": "Use the {item:item}",
    "use_quest_action": "Quest: {action:quest_action}",
    "loot": "Loot {seat:seat}: {?item|the {item:item}|{resource:resource}}",
    "use_key_item": "Use the {item:item}",
    "decline_key_item": "Keep the key item for later",
    "end_turn": "End the turn",
    "pay_cost": "Pay the cost",
    "decline_cost": "Do not pay (suffer the damage, or let the fire go out)",
    "choose_fighter": "{seat:seat} fights",
    "choose_enemy": "Fight {enemy:enemy}",
    "choose_space": "Choose ({space.q}, {space.r})",
    "play_support": "Support with {card:support}",
    "decline_support": "Play no support card",
    "roll_combat": "Roll the dice",
    "escape": "Escape to ({to.q}, {to.r})",
    "spend_resource": "Spend {resource:resource} on the dice",
    "use_combat_item": "Use the {item:item} in the fight",
    "use_support_card": "Use {card:support}",
    "resolve_combat": "Stop changing the dice: strike",
    "give_reward": "Give {resource:resource} to {seat:seat}",
    "keep_rewards": "Keep the rest of the rewards",
}

EVENTS = {
    "steps_queued": "",
    "step_done": "",
    "pile_formed": "",
    "discards_reshuffled": "The {deck:deck} discards were shuffled back",
    "leader_rolled": "Dice for the leadership: {values}",
    "leader_changed": "{seat:seat} leads",
    "characters_dealt": "{seat:seat} was dealt {characters:character}",
    "projects_drawn": "{seat:seat} drew {projects:project}",
    "hidden_cards_dealt": "{seat:seat} was dealt {count|card|cards}",
    "character_chosen": "{seat:seat} chose the {character:character}",
    "character_picked": "{seat:seat} has chosen a character",
    "characters_revealed": "The survivors are {characters:character}",
    "day_started": "Day {day} begins",
    "turn_ended": "{seat:seat} ended the turn",
    "day_ended": "Day {day} is over",
    "stamina_changed": "{seat:seat} has {stamina} stamina",
    "survivor_moved": "{seat:seat} moved to ({to.q}, {to.r})",
    "tile_revealed": "A new map tile was explored",
    "feature_revealed": "{seat:seat} found {face:face}",
    "resource_changed": "{seat:seat}: {amount:signed} {resource:resource}",
    "item_gained": "{seat:seat} gained the {item:item}",
    "item_lost": "{seat:seat} lost the {item:item}",
    "item_placed": "The {item:item} was set up at ({space.q}, {space.r})",
    "project_crafted": "{seat:seat} crafted the {project:project}",
    "trade_opened": "{seat:seat} is trading with {partner:seat}",
    "trade_good_listed": "{giver:seat} put {?item|the {item:item}|{resource:resource}} on the table",
    "trade_offered": "{seat:seat} proposed a trade to {partner:seat}",
    "trade_answered": "{partner:seat} {?accepted|accepted|declined} the trade",
    "goods_transferred": "{giver:seat} gave {?item|the {item:item}|{resource:resource}} to {taker:seat}",
    "trade_closed": "{seat:seat} stopped trading",
    "landmark_investigated": "{seat:seat} investigated {landmark:landmark}",
    "card_resolved": "{seat:seat} resolved {number:exploration}",
    "fire_changed": "The fire at ({space.q}, {space.r}) {?lit|is lit|went out}",
    "shelter_marked": "A shelter stands at ({space.q}, {space.r})",
    "damage_taken": "{seat:seat} suffers {damage:damage}",
    "damage_healed": "{seat:seat} recovered from {damage:damage}",
    "survivor_eliminated": "{seat:seat} has fallen",
    "survivor_won": "{seat:seat} escaped the island!",
    "enemy_spawned": "{?number|A {number:enemy_kind}|A monster} appeared at ({space.q}, {space.r})",
    "monster_revealed": "The monster is a {number:enemy_kind}",
    "monster_moved": "A monster moved to ({to.q}, {to.r})",
    "fighter_voted": "{seat:seat} votes for {fighter:seat} to fight",
    "fighter_chosen": "{seat:seat} will fight",
    "combat_started": "{seat:seat} fights {enemy:enemy}",
    "support_played": "{seat:seat} played a support card",
    "support_declined": "{seat:seat} gave no support",
    "combat_stage_set": "",
    "combat_rolled": "The dice show grey {grey}, red {red}",
    "reroll_requested": "The {die:die} is rolled again ({source:modifier})",
    "die_rerolled": "The {die:die} now shows {value}",
    "die_modified": "{source:modifier}: {die:die} {amount:signed}",
    "enemy_damaged": "{enemy:enemy} is wounded ({damage|wound|wounds})",
    "enemy_removed": "{enemy:enemy} was defeated by {defeated_by:seat}",
    "enemy_retreated": "{enemy:enemy} fell back to ({to.q}, {to.r})",
    "survivor_escaped": "{seat:seat} escaped to ({to.q}, {to.r})",
    "combat_ended": "The fight is over",
    "cost_declined": "{seat:seat} did not pay",
    "night_card_drawn": "Night falls: {card:night}",
    "threat_drawn": "{seat:seat} drew the threat {card:threat}",
    "card_discarded": "",
    "ongoing_threat_placed": "{card:threat} hangs over {seat:seat} until day {until_day}",
    "ongoing_threat_expired": "{card:threat} no longer threatens {seat:seat}",
    "stage_completed": "Quest stage {stage:stage} is complete",
    "stage_began": "Quest stage: {stage:stage}",
    "clues_gained": "The survivors found {amount|clue|clues}",
    "quest_action_unlocked": "New quest action: {action:quest_action}",
    "game_ended": "The end: {?won|the survivors escaped|the island claimed them}{?reason| ({reason})}",
    **PLATFORM_EVENTS,
}


def _legend(game: content.Content) -> tuple[LegendEntry, ...]:
    colours = {"grass": "#7fb95a", "underbrush": "#4c8a3c", "mountain": "#8e8577", "ocean": "#2f6f9f"}
    terrain = tuple(
        LegendEntry("terrain", colours.get(t, t), t, "impassable" if cost is None else f"costs {cost} stamina to enter")
        for t, cost in game.terrain_cost.items()
    )
    return (
        *terrain,
        LegendEntry("icon", "♣", "tree", "gather: wood, food or a surprise"),
        LegendEntry("icon", "✿", "shrub", "gather: food, water or a surprise"),
        LegendEntry("icon", "●", "rocks", "gather: stone or a surprise"),
        LegendEntry("icon", "#", "wreck", "gather: salvage or a surprise"),
        LegendEntry("icon", "💧", "water source", "clean (light blue) or dirty (brown) water"),
        LegendEntry("icon", "🔥", "fire", "lit fires let survivors cook and keep warm at night"),
        LegendEntry("icon", "⌂", "shelter", "protects from exposure at night"),
        LegendEntry("icon", "red disc", "monster", "its number once revealed; a dark disc is a special enemy"),
        LegendEntry("icon", "?", "fog", "an unexplored map slot"),
        LegendEntry("icon", "figure", "survivor", "a player's survivor, in the seat's colour"),
    )


@cache
def words() -> GameWords:
    game = content.load(SCENARIOS[0])
    return GameWords(
        game="discover",
        title="Discover: Lands Unknown",
        summary="Survive a strange island together: gather, craft, fight and complete the quest to escape.",
        tables=_tables(game),
        actions=ACTIONS,
        events=EVENTS,
        legend=_legend(game),
    )
