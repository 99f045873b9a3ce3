"""A game's words (services/games/common/words.py) from the game registry, and their
wire form: the DescribeGame answer the gateway serves (gateway/describe.py) and
clients in Python read back (the `tabletop` command renders with them).

A game without a words module (an extra game added by package) still has words:
its action and event kinds get plain templates made from their names.

`python -m contract.words > web/dist/data/words.json` writes the web table's copy.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from functools import cache

from tabletop.gateway.v1 import gateway_pb2 as pb

from services.games import registry
from services.games.common.words import PLATFORM_EVENTS, GameWords, LegendEntry, Term, seat_table


def game_words(name: str) -> GameWords:
    """The words of `name`; raises registry.UnknownGame for a game this build lacks."""
    return _game_words(name)


@cache
def _game_words(name: str) -> GameWords:
    registry.declaration(name)  # an unknown game raises here, not as a missing words module
    package = registry.package(name)
    try:
        module = importlib.import_module(f"{package}.words")
    except ModuleNotFoundError as missing:
        if missing.name != f"{package}.words":
            raise
        return _plain_words(name)
    words: GameWords = module.words()
    return words


def title_and_summary(name: str) -> tuple[str, str]:
    """The game's name and one-line summary for people (ListGames' title and summary): its
    words', or for a game this build lacks (hosted by its rules alone) its plain title."""
    try:
        words = game_words(name)
    except registry.UnknownGame:
        return _plain_title(name), ""
    return words.title, words.summary


def _plain_title(name: str) -> str:
    return name.replace("_", " ").title()


def _plain_words(name: str) -> GameWords:
    """Words for a game that ships none: each kind named after itself."""
    codec = registry.game(name).codec

    def kinds(message: type) -> dict[str, str]:
        fields = message.DESCRIPTOR.oneofs_by_name["kind"].fields  # type: ignore[attr-defined]
        return {f.name: "{?seat|{seat:seat}: |}" + f.name.replace("_", " ") for f in fields}

    declared = registry.declaration(name)
    return GameWords(
        game=name,
        title=_plain_title(name),
        tables={"seat": seat_table(declared.engine.max_seats)},
        actions=kinds(codec.action_message),
        events={**kinds(codec.event_message), **PLATFORM_EVENTS},
    )


def to_message(words: GameWords) -> pb.GameWords:
    """The words as the API's GameWords message."""
    return pb.GameWords(
        game=words.game,
        title=words.title,
        summary=words.summary,
        tables={name: _table(entries) for name, entries in words.tables.items()},
        actions=dict(words.actions),
        events=dict(words.events),
        legend=[pb.LegendEntry(group=e.group, symbol=e.symbol, name=e.name, text=e.text) for e in words.legend],
    )


def _table(entries: dict[str, Term] | object) -> pb.TermTable:
    assert isinstance(entries, dict)
    return pb.TermTable(entries={key: pb.Term(name=t.name, text=t.text) for key, t in entries.items()})


def from_message(message: pb.GameWords) -> GameWords:
    """A DescribeGame answer as the formatter's GameWords (what clients in Python render with)."""
    return GameWords(
        game=message.game,
        title=message.title,
        summary=message.summary,
        tables={name: {key: Term(t.name, t.text) for key, t in table.entries.items()}
                for name, table in message.tables.items()},
        actions=dict(message.actions),
        events=dict(message.events),
        legend=tuple(LegendEntry(e.group, e.symbol, e.name, e.text) for e in message.legend),
    )


def dump(games: Iterable[str] | None = None) -> dict[str, object]:
    """Every game's words as DescribeGame's JSON answer, by game: the web table's copy for
    pages served without a gateway (fixture mode), web/dist/data/words.json."""
    from google.protobuf import json_format

    names = sorted(registry.GAMES if games is None else games)
    return {name: json_format.MessageToDict(to_message(game_words(name))) for name in names}


if __name__ == "__main__":
    import json

    print(json.dumps(dump(), indent=1, sort_keys=True, ensure_ascii=False))
