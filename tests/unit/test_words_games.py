"""Each game's words (services/games/<game>/words.py): a template for every action and
event type, templates that parse and name only tables the game ships, and a whole
random game's log and choices rendered without raw ids or field dumps."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from contract.words import game_words
from services.dice.playout import LocalChance
from services.games import registry
from services.games.common import chance, words
from services.match.lifecycle import PLATFORM_EVENTS

GAMES = ("el_dorado", "la_isla", "discover")
# What must never reach a player: the engines' ids and the proto's enum names.
RAW = re.compile(
    r"\bP\d{3}\b"  # La Isla card ids
    r"|\b[NT]\d{2}[a-z]?\b|\bM\d{2}[a-z]\b|\b(red|blue|green|grey|yellow)-\d+\b"  # Discover card ids
    r"|\b[A-Z]+_[A-Z_]+\b"  # enum names (COLOUR_WHITE)
    r"|[a-z]+_[a-z_]+"  # snake_case ids and field names (giant_fossa, from_discard)
    r"|\b[FSX]\d+\b"  # Discover enemy serials (a client names them from its view)
    r"|[{}=]|—|\bcharacter \d|\bProject \d|\bitem \d"  # field dumps, numbered stand-ins
)


def _kinds(message: type[Message]) -> set[str]:
    return {f.name for f in message.DESCRIPTOR.oneofs_by_name["kind"].fields}


@pytest.mark.parametrize("game", GAMES)
def test_every_action_type_has_a_template(game: str) -> None:
    codec = registry.game(game).codec
    missing = _kinds(codec.action_message) - set(game_words(game).actions)
    assert not missing, f"{game} actions without words: {sorted(missing)}"


@pytest.mark.parametrize("game", GAMES)
def test_every_event_type_has_a_template(game: str) -> None:
    codec = registry.game(game).codec
    platform = {words.snake(name.rsplit(".", 1)[-1]) for name in PLATFORM_EVENTS}
    missing = (_kinds(codec.event_message) | platform) - set(game_words(game).events)
    assert not missing, f"{game} events without words: {sorted(missing)}"


@pytest.mark.parametrize("game", GAMES)
def test_templates_parse_and_name_shipped_tables(game: str) -> None:
    said = game_words(game)
    for kind, template in {**said.actions, **said.events}.items():
        words.parse(template)
        unknown = words.tables_used(template) - set(said.tables)
        assert not unknown, f"{game} {kind} names tables it lacks: {unknown}"


@pytest.mark.parametrize("game", GAMES)
def test_the_words_say_no_more_than_content(game: str) -> None:
    """No template or name carries an id the player never sees as such, and the legend is there."""
    said = game_words(game)
    assert said.title and said.legend
    for table, entries in said.tables.items():
        for key, term in entries.items():
            assert term.name, f"{game} {table} {key} has no name"


def test_named_cards_are_whole_and_clear() -> None:
    ed = game_words("el_dorado").tables["card"]
    assert ed["cartographer"].name == "Cartographer" and ed["transmitter"].name == "Transmitter"
    assert "draw 2" in ed["cartographer"].text
    li = game_words("la_isla").tables["card"]
    assert li["P001"].name == "3 points on white"
    dc = game_words("discover")
    assert dc.tables["character"]["5"].name and not dc.tables["character"]["5"].name.startswith("character")
    assert "makes the" in dc.tables["project"]["7"].text
    assert dc.tables["decision"]["free_gather"].name == "a free gather after moving"


def _json(message: Message, camel: bool) -> dict[str, Any]:
    """A payload as a browser (camelCase, zeros left out) or the CLI (proto names, zeros shown) reads it."""
    body = MessageToDict(message, preserving_proto_field_name=not camel,
                         always_print_fields_with_no_presence=not camel)
    return {"@type": f"type.googleapis.com/{message.DESCRIPTOR.full_name}", **body}


def _random_game(game: str, seed: int, players: int, limit: int) -> Iterator[tuple[str, Message, int | None]]:
    """("action", "event" or "view", payload, viewer) for a game of random legal play, as each
    viewer sees it; the spectator's view comes before each move and with each batch."""
    entry = registry.game(game)
    engine, codec = entry.engine, entry.codec
    rng = random.Random(seed)
    resolver = LocalChance(seed=seed.to_bytes(32, "big"))
    config = {"max_rounds": "6"} if game == "el_dorado" else {}
    state = engine.setup(config, players)
    for _ in range(limit):
        turn = engine.to_move(state)
        yield "view", codec.encode_view(engine.view(state, None)), None
        if turn.chance is not None:
            seat, action = chance.CHANCE_SEAT, resolver.resolve(turn.chance)
        elif turn.seats:
            seat = turn.seats[rng.randrange(len(turn.seats))]
            legal = engine.legal_actions(state, seat)
            for option in legal:
                yield "action", codec.encode_action(option), seat
            action = legal[rng.randrange(len(legal))]
        else:
            return
        batch = list(engine.decide(state, seat, action))
        for event in batch:
            state = engine.evolve(state, event)
        # A client reads a batch's log with the view that comes with it (WatchMatch with_view).
        yield "view", codec.encode_view(engine.view(state, None)), None
        for event in batch:
            for viewer in (None, *range(players)):
                shown = event if engine.visibility(event).admits(viewer) else engine.redact(event)
                if shown is not None:
                    yield "event", codec.encode_event(shown), viewer


def _enemy_names(game: str, view: dict[str, Any], known: dict[str, words.Term]) -> None:
    """What a client learns of the enemies on the map from its view: serial -> kind
    (web/dist/js/games/discover.js does the same)."""
    kinds = game_words(game).tables.get("enemy_kind", {})
    for enemy in view.get("enemies", []):
        known[enemy["id"]] = kinds.get(str(enemy.get("number", 0)), words.Term("a monster"))


@pytest.mark.parametrize("game,seed", [("el_dorado", 3), ("la_isla", 5), ("discover", 7)])
def test_a_random_games_log_and_choices_read_as_words(game: str, seed: int) -> None:
    said = game_words(game)
    enemies: dict[str, words.Term] = {}
    rendered = 0
    for what, message, _viewer in _random_game(game, seed, players=3, limit=1500):
        if what == "view":
            _enemy_names(game, _json(message, True), enemies)
            continue
        for camel in (True, False):
            payload = _json(message, camel)
            tables = {**said.tables, "enemy": enemies}
            templates = said.actions if what == "action" else said.events
            text = words.describe(templates, payload["@type"], payload, tables)
            assert text is not None, f"no words for {payload}"
            found = RAW.search(text)
            assert not found, f"{game} {what} reads {text!r} (raw {found.group(0)!r}) from {payload}"
            rendered += 1
    assert rendered > 500


def test_bookkeeping_is_left_out() -> None:
    said = game_words("el_dorado")
    for kind in ("undo_point", "clock_set", "chance_resolved", "seed_revealed"):
        assert said.events[kind] == ""
    assert said.events["card_spent"]
