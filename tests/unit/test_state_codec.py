"""Engine states as canonical JSON: equal states give equal bytes whatever order their
sets and dicts were built in, and the bytes read back as the same state."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum

from hypothesis import given
from hypothesis import strategies as st

from services.games.common.serde import StateCodec, _json_key


class Colour(Enum):
    RED = 1
    BLUE = 2


@dataclass(frozen=True)
class Piece:
    name: str
    colour: Colour


@dataclass(frozen=True)
class Board:
    pieces: tuple[Piece, ...]
    tags: frozenset[str]
    counts: dict[str, int]
    spots: dict[int, frozenset[int]]
    owner: int | None = None


CODEC = StateCodec([Colour, Piece, Board])
texts = st.text(max_size=6)


@given(st.one_of(texts, st.integers(), st.booleans(), st.none()))
def test_the_sort_key_is_the_json_text(value: object) -> None:
    assert _json_key(value) == json.dumps(value, sort_keys=True)


boards = st.builds(
    Board,
    pieces=st.lists(st.builds(Piece, texts, st.sampled_from(Colour)), max_size=4).map(tuple),
    tags=st.frozensets(texts, max_size=6),
    counts=st.dictionaries(texts, st.integers(), max_size=5),
    spots=st.dictionaries(st.integers(-5, 5), st.frozensets(st.integers(), max_size=3), max_size=4),
    owner=st.none() | st.integers(),
)


@given(boards)
def test_equal_states_give_equal_bytes_that_read_back(board: Board) -> None:
    data = CODEC.encode(board)
    assert CODEC.decode(data) == board
    shuffled = Board(
        board.pieces,
        frozenset(reversed(sorted(board.tags))),
        dict(reversed(list(board.counts.items()))),
        dict(reversed(list(board.spots.items()))),
        board.owner,
    )
    assert CODEC.encode(shuffled) == data
    # The order is the one JSON's text gives, as it always was.
    plain = json.loads(data)
    tags = plain["f"]["tags"]["$s"]
    assert tags == sorted(tags, key=lambda t: json.dumps(t, sort_keys=True))
