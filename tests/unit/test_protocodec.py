"""The generic dataclass <-> protobuf mapping, on the shared chance messages."""

import dataclasses

import pytest
from google.protobuf.message import Message
from tabletop.common.v1 import chance_pb2

from services.dice import playout
from services.games import registry
from services.games.common import chance, protocodec, values
from services.games.common.recent import Recent

OUTCOMES = chance.OUTCOME_TYPES
REQUESTS = chance.REQUEST_TYPES


@pytest.mark.parametrize(
    "value",
    [
        chance.RollDice(count=2, faces=6),
        chance.ShufflePile(pile="draw:1", cards=("a", "b"), keep_order=True),
        chance.DrawCards(pile="draw:1", count=3, seat=None),
        chance.DrawCards(pile="draw:1", count=3, seat=0),
        chance.PutCards(pile="draw:1", cards=("x", "y"), bottom=True, seat=2),
    ],
)
def test_request_round_trips(value):
    message = protocodec.encode_union(value, chance_pb2.ChanceRequest)
    assert protocodec.decode_union(message, REQUESTS) == value


def test_optional_seat_zero_is_not_none():
    message = protocodec.encode_union(chance.DrawCards("p", 1, 0), chance_pb2.ChanceRequest)
    assert message.draw_cards.HasField("seat")


def test_union_with_no_kind_is_refused():
    with pytest.raises(protocodec.ProtoMismatch):
        protocodec.decode_union(chance_pb2.ChanceOutcome(), OUTCOMES)


def test_snake_case_names():
    assert protocodec.snake("PlayCard") == "play_card"
    assert protocodec.enum_prefix("CardSymbol") == "CARD_SYMBOL"


def test_a_kind_the_options_lack_is_refused():
    message = protocodec.encode_union(chance.RollDice(count=2, faces=6), chance_pb2.ChanceRequest)
    others = tuple(cls for cls in REQUESTS if cls is not chance.RollDice)
    with pytest.raises(protocodec.ProtoMismatch, match="unsupported kind roll_dice"):
        protocodec.decode_union(message, others)


def test_fields_that_must_be_named_are_decoded_by_name():
    """Decoders pass fields by position where the dataclass allows it; keyword-only fields
    (here declared in another order than the message's) must still land where they belong."""

    @dataclasses.dataclass(frozen=True, kw_only=True)
    class Draw:
        count: int
        pile: str
        seat: int | None = None

    message = chance_pb2.DrawCards(pile="draw:1", count=3, seat=2)
    assert protocodec.decode(message, Draw) == Draw(count=3, pile="draw:1", seat=2)


def _walked(message: Message, value: object) -> None:
    """The encoder as a plan walked field by field (what the written-out fillers replace)."""
    for slot in protocodec._out_plan(message.DESCRIPTOR, type(value)):
        item = getattr(value, slot.name)
        if item is not None:
            slot.write(message, item)


@pytest.mark.parametrize("game", ["la_isla", "el_dorado", "discover"])
def test_written_out_fillers_encode_what_walking_the_plan_does(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    entry = registry.game(game)
    engine, codec = entry.engine, entry.codec
    out = playout.play(engine, {}, 2, seed=11)
    values: list[tuple[object, type[Message]]] = []
    state = out.initial
    for index, event in enumerate(out.events):
        state = engine.evolve(state, event)
        values.append((event, codec.event_message))
        if index % 5 == 0:
            values += [(engine.view(state, viewer), codec.view_message) for viewer in (0, 1, None)]

    def encoded() -> list[bytes]:
        return [codec_encode(v, cls) for v, cls in values]

    def codec_encode(value: object, cls: type[Message]) -> bytes:
        union = cls.DESCRIPTOR.oneofs_by_name.get("kind") is not None
        message = protocodec.encode_union(value, cls) if union else protocodec.encode(value, cls)
        return message.SerializeToString(deterministic=True)

    written_out = encoded()
    monkeypatch.setattr(protocodec, "_fill", _walked)
    assert encoded() == written_out
    assert len(written_out) > 100


@pytest.mark.parametrize("game", ["la_isla", "el_dorado", "discover"])
def test_views_shared_from_one_position_to_the_next_encode_as_alone(
    game: str,
) -> None:
    """Each state's views encoded within a `sharing()` of their own, one after the other as
    positions are, give the bytes each gives encoded alone, whatever they copy from the
    encodings made before."""
    entry = registry.game(game)
    engine, codec = entry.engine, entry.codec
    out = playout.play(engine, {}, 2, seed=5)
    state, views = out.initial, []
    for event in out.events[:400]:
        state = engine.evolve(state, event)
        views.append([engine.view(state, viewer) for viewer in (0, 1, None)])

    def encoded(vs: list[object]) -> list[bytes]:
        return [protocodec.encode(v, codec.view_message).SerializeToString(deterministic=True) for v in vs]

    alone = [encoded(vs) for vs in views]
    shared = []
    for vs in views:
        with protocodec.sharing():
            shared.append(encoded(vs))
    assert shared == alone


def test_an_unchanged_la_isla_board_is_the_same_tuple_and_encoded_once_across_positions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Named reusable, it is encoded into bytes as it is first met and parsed from them by
    every later view that gives it again (protocodec.sharing)."""
    entry = registry.game("la_isla")
    engine, codec = entry.engine, entry.codec
    out = playout.play(engine, {}, 2, seed=5)
    state = out.initial
    for event in out.events[:60]:
        state = engine.evolve(state, event)
    fills = 0
    fill_each = protocodec._fill_each
    spaces = engine.view(state, 0).spaces

    def counted(target: object, items: object) -> None:
        nonlocal fills
        fills += items is spaces
        fill_each(target, items)  # type: ignore[arg-type]

    monkeypatch.setattr(protocodec, "_fill_each", counted)
    # As if no view had given this board before.
    monkeypatch.setattr(protocodec, "_shared", Recent(protocodec.SHARED_KEPT))
    for viewer in (0, 1, None, 0):
        later = dataclasses.replace(state, round=state.round)  # another state, the same board
        view = engine.view(later, viewer)
        assert later is not state and view.spaces is spaces
        with protocodec.sharing():
            message = protocodec.encode(view, codec.view_message)
        alone = protocodec.encode(view, codec.view_message)
        assert message.SerializeToString(deterministic=True) == alone.SerializeToString(deterministic=True)
    assert values.is_reusable(spaces)
    assert fills == 1 + 4  # and the four encoded alone


def test_an_unchanged_discover_map_is_the_same_tuples_in_every_view() -> None:
    """What the codec shares by identity (protocodec.sharing): the map's public parts of two
    states showing the same map, for any viewer, are the very same tuples."""
    engine = registry.game("discover").engine
    out = playout.play(engine, {}, 2, seed=5)
    state = out.initial
    for event in out.events[:80]:
        state = engine.evolve(state, event)
    later = dataclasses.replace(state, tiles=dict(state.tiles), fires=dict(state.fires))  # equal, not the same
    first, second = engine.view(state, 0), engine.view(later, 1)
    for part in ("tiles", "features", "fires", "placed"):
        assert getattr(first, part) is getattr(second, part), part
    assert first.tiles, "the playout revealed the map"
