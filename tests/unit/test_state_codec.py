"""Engine states as canonical JSON: equal states give equal bytes whatever order their
sets and dicts were built in, and the bytes read back as the same state."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum, IntEnum

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


class Rank(IntEnum):
    LOW = 1
    HIGH = 2


@dataclass(frozen=True)
class Hoard:
    boards: tuple[Board, ...]
    nested: frozenset[tuple[int, str]]
    rank: Rank
    keyed: dict[str, tuple[Piece, ...]]


HOARD_CODEC = StateCodec([Colour, Piece, Board, Rank, Hoard])
hoards = st.builds(
    Hoard,
    boards=st.lists(boards, max_size=3).map(tuple),
    nested=st.frozensets(st.tuples(st.integers(-20, 20), texts), max_size=5),
    rank=st.sampled_from(Rank),
    keyed=st.dictionaries(texts, st.lists(st.builds(Piece, texts, st.sampled_from(Colour)), max_size=2).map(tuple)),
)


def _reference(codec: StateCodec, value: object) -> bytes:
    return json.dumps(codec.plain(value), separators=(",", ":"), sort_keys=True).encode()


@given(hoards)
def test_the_written_text_is_json_dumps_of_the_plain_tree(hoard: Hoard) -> None:
    # encode writes text directly, keeping each part's text by identity; the bytes must be
    # exactly what json.dumps of the plain tree gives (equal states, equal bytes, for ever).
    assert HOARD_CODEC.encode(hoard) == _reference(HOARD_CODEC, hoard)
    again = Hoard(hoard.boards, hoard.nested, Rank.HIGH, hoard.keyed)  # shares every other part
    assert HOARD_CODEC.encode(again) == _reference(HOARD_CODEC, again)
    assert HOARD_CODEC.decode(HOARD_CODEC.encode(again)) == again


def test_every_games_states_through_random_play_encode_as_the_reference() -> None:
    from services.dice.playout import play
    from services.games import registry

    for game in ("el_dorado", "la_isla", "discover"):
        entry = registry.game(game)
        states: list[object] = []

        def keep(state: object, event: object, states: list[object] = states) -> None:
            states.append(state)

        play(entry.engine, {}, 2, seed=7, check=keep, max_steps=600)
        codec = entry.codec.state
        assert len(states) > 50
        for state in states:
            assert codec.encode(state) == _reference(codec, state), game
