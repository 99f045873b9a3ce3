"""The shared content loader: a JSON row becomes a frozen spec dataclass by its fields and hints."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import pytest

from services.games.common.content import from_row, load_rows, read_json, typed


class Suit(Enum):
    CUPS = "cups"
    SWORDS = "swords"


@dataclass(frozen=True)
class Effect:
    kind: str
    n: int = 0


@dataclass(frozen=True)
class Card:
    id: str
    suit: Suit
    power: int
    single_use: bool
    effects: tuple[Effect, ...]
    at: tuple[int, int]
    upgrade: Effect | None = None
    note: str | None = None


@dataclass(frozen=True)
class Board:
    slots: tuple[tuple[str, int], ...]
    by_players: dict[int, int]
    cards: tuple[Card, ...]


GOOD = {
    "id": "scout",
    "suit": "cups",
    "power": 2,
    "single_use": False,
    "effects": [{"kind": "draw", "n": 1}, {"kind": "keep"}],
    "at": [3, -4],
}


def test_a_good_row_becomes_its_spec() -> None:
    card = from_row(Card, GOOD, where="cards.json cards[0]")
    assert card == Card("scout", Suit.CUPS, 2, False, (Effect("draw", 1), Effect("keep")), (3, -4))


def test_nested_dataclasses_tuples_and_optional_fields_are_converted() -> None:
    card = from_row(Card, {**GOOD, "upgrade": {"kind": "draw", "n": 2}, "note": None}, where="row")
    assert card.effects == (Effect("draw", 1), Effect("keep", 0))
    assert isinstance(card.effects, tuple) and isinstance(card.at, tuple)
    assert card.upgrade == Effect("draw", 2)
    assert card.note is None


def test_an_object_reads_as_sorted_pairs_and_digit_keys_as_ints() -> None:
    board = from_row(Board, {"slots": {"b": 2, "a": 1}, "by_players": {"2": 5, "1": 6}, "cards": [GOOD]}, where="row")
    assert board.slots == (("a", 1), ("b", 2))
    assert board.by_players == {2: 5, 1: 6}
    assert board.cards[0].suit is Suit.CUPS


def test_a_missing_field_names_the_row_and_the_field() -> None:
    row = {k: v for k, v in GOOD.items() if k != "power"}
    with pytest.raises(ValueError, match=r"cards\.json cards\[0\]: missing field 'power' of Card"):
        from_row(Card, row, where="cards.json cards[0]")


def test_a_missing_field_with_a_default_takes_it() -> None:
    assert from_row(Effect, {"kind": "keep"}, where="row") == Effect("keep", 0)


def test_an_unknown_field_is_refused_unless_ignored() -> None:
    with pytest.raises(ValueError, match=r"cards\[0\]: unknown field 'colour' for Card"):
        from_row(Card, {**GOOD, "colour": "red"}, where="cards[0]")
    assert from_row(Card, {**GOOD, "reason": "a note"}, where="row", ignore=("reason",)).id == "scout"


def test_a_wrong_type_names_the_field() -> None:
    with pytest.raises(ValueError, match=r"cards\[0\]\.power: expected int, got a string"):
        from_row(Card, {**GOOD, "power": "2"}, where="cards[0]")
    with pytest.raises(ValueError, match=r"row\.power: expected int, got a boolean"):
        from_row(Card, {**GOOD, "power": True}, where="row")
    with pytest.raises(ValueError, match=r"row\.single_use: expected bool, got an integer"):
        from_row(Card, {**GOOD, "single_use": 0}, where="row")
    with pytest.raises(ValueError, match=r"row\.suit: 'coins' is not a Suit"):
        from_row(Card, {**GOOD, "suit": "coins"}, where="row")
    with pytest.raises(ValueError, match=r"row\.at: expected 2 items, got 3"):
        from_row(Card, {**GOOD, "at": [1, 2, 3]}, where="row")
    with pytest.raises(ValueError, match=r"row\.note: expected str, got an integer"):
        from_row(Card, {**GOOD, "note": 4}, where="row")


def test_an_error_in_a_nested_row_names_its_path() -> None:
    row = {**GOOD, "effects": [{"kind": "draw"}, {"kind": "draw", "n": "one"}]}
    with pytest.raises(ValueError, match=r"cards\[3\]\.effects\[1\]\.n: expected int"):
        load_rows([GOOD, GOOD, GOOD, row], Card, where="cards")


def test_load_rows_keeps_the_order_and_wants_an_array() -> None:
    rows = load_rows([{"kind": "b"}, {"kind": "a", "n": 3}], Effect, where="effects")
    assert rows == (Effect("b"), Effect("a", 3))
    with pytest.raises(ValueError, match="effects: expected a JSON array of Effect rows"):
        load_rows({"kind": "b"}, Effect, where="effects")
    with pytest.raises(ValueError, match=r"effects\[0\]: expected a JSON object"):
        load_rows(["b"], Effect, where="effects")


def test_hooks_convert_what_a_hint_alone_cannot_say() -> None:
    def effect(raw: object, where: str) -> Effect:
        assert isinstance(raw, str), where
        return Effect(raw)

    card = from_row(Card, {**GOOD, "effects": ["draw", "keep"]}, where="row", hooks={Effect: effect})
    assert card.effects == (Effect("draw"), Effect("keep"))


def test_typed_reads_a_value_beside_the_rows_and_files_are_named(tmp_path: Path) -> None:
    path = tmp_path / "cards.json"
    path.write_text(json.dumps({"source": "a note", "board_slots": 6, "cards": [GOOD]}))
    file = read_json(path)
    assert typed(file["board_slots"], int, where="cards.json board_slots") == 6
    assert load_rows(file["cards"], Card, where="cards.json cards")[0].id == "scout"
    with pytest.raises(ValueError, match=r"cards\.json source: expected int"):
        typed(file["source"], int, where="cards.json source")
    path.write_text("[]")
    with pytest.raises(ValueError, match=r"cards\.json: expected a JSON object"):
        read_json(path)
