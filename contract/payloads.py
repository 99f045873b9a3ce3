"""Every message that travels inside a google.protobuf.Any through the gateway,
and the JSON mapping that resolves them.

Views, legal actions, submitted actions, log entries and watch updates carry
game payloads as Any: each game's `Action`, `Event` and `View` messages (named
by its codec in the game registry, services/games/registry.py) and the
platform's own events (`PLATFORM_EVENTS` below, which the match's lifecycle logs). This
module is the one list of them; nothing else spells it out. It needs only the
generated protos and the game registry, so clients of the public API (the `tabletop`
command) read payloads with it as the gateway does.

* `payload_types(games)`: full name -> descriptor of every payload.
* `descriptor_pool(games)`: a pool holding exactly the payload files (and what
  they import), for `json_format`'s `descriptor_pool=` so an Any prints as
  `{"@type": ..., ...}` and JSON with an `@type` parses; an Any naming any
  other type is refused (json_format raises ParseError).
* `to_json` / `to_dict` / `parse_json`: json_format with that pool.
* `reflected_names(games)`: the payload names the gateway's server reflection
  must resolve. grpcio-reflection answers FileContainingSymbol from the
  default descriptor pool, which holds every generated module this process has
  imported; `payload_types` imports each game's codec, so calling it before
  `serve` (gateway/__main__.py does, and serve checks each name) makes every
  payload resolvable by any reflection client. The names are not added to the
  reflected service list: that list is for services, and clients that
  describe every listed service (grpcui, Postman) fail on a message name.

`games` defaults to every game of this build the registry knows
(`registry.available()`, extra games included once added).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict, Unpack

from google.protobuf import descriptor, descriptor_pb2, json_format
from google.protobuf import descriptor_pool as _pool
from google.protobuf.message import Message
from tabletop.match.v1 import events_pb2 as ev

from services.games import registry

if TYPE_CHECKING:
    from google._upb import _message as upb

    # A message's descriptor comes from the pure-Python or the upb runtime.
    MessageShape: TypeAlias = descriptor.Descriptor | upb.Descriptor
    FileShape: TypeAlias = descriptor.FileDescriptor | upb.FileDescriptor

TYPE_URL_PREFIX = "type.googleapis.com/"

# The platform's events, which every match's log holds whatever its game
# (services/match/lifecycle.py applies them).
PLATFORM_EVENTS: dict[str, type[Message]] = {
    cls.DESCRIPTOR.full_name: cls
    for cls in (
        ev.MatchCreated,
        ev.PlayerJoined,
        ev.PlayerLeft,
        ev.MatchStarted,
        ev.ChanceResolved,
        ev.MatchEnded,
        ev.SeedRevealed,
        ev.ClockSet,
        ev.ClockExpired,
        ev.UndoPoint,
        ev.ActionsUndone,
        ev.LobbyExpired,
    )
}

# Any: a JSON value of any type, as json_format's MessageToDict types it (and its readers index into it).
JsonObject: TypeAlias = dict[str, Any]
"""A JSON object as json_format writes and reads it: its values are of any JSON type."""


class DictOptions(TypedDict, total=False):
    """json_format.MessageToDict's options."""

    preserving_proto_field_name: bool
    always_print_fields_with_no_presence: bool
    use_integers_for_enums: bool


class JsonOptions(DictOptions, total=False):
    """json_format.MessageToJson's options."""

    indent: int | None
    sort_keys: bool
    ensure_ascii: bool


class ParseOptions(TypedDict, total=False):
    """json_format.Parse's and ParseDict's options."""

    ignore_unknown_fields: bool
    max_recursion_depth: int


def _games(games: Iterable[str] | None) -> tuple[str, ...]:
    return tuple(sorted(set(registry.available() if games is None else games)))


def payload_types(games: Iterable[str] | None = None) -> dict[str, MessageShape]:
    """Full name -> descriptor of every payload of `games` and of the platform's
    events; raises registry.UnknownGame for a game this build lacks."""
    return dict(_payload_types(_games(games)))


@cache
def _payload_types(games: tuple[str, ...]) -> tuple[tuple[str, MessageShape], ...]:
    found: dict[str, MessageShape] = {}
    for name in games:
        codec = registry.game(name).codec
        for message_cls in (codec.action_message, codec.event_message, codec.view_message):
            found[message_cls.DESCRIPTOR.full_name] = message_cls.DESCRIPTOR
    for message_cls in PLATFORM_EVENTS.values():
        found[message_cls.DESCRIPTOR.full_name] = message_cls.DESCRIPTOR
    return tuple(sorted(found.items()))


def reflected_names(games: Iterable[str] | None = None) -> tuple[str, ...]:
    """The payload names server reflection must resolve (all in the default pool once this returns)."""
    return tuple(payload_types(games))


def descriptor_pool(games: Iterable[str] | None = None) -> _pool.DescriptorPool:
    """A pool with the file of every payload and their imports (built once per set of games)."""
    return _descriptor_pool(_games(games))


@cache
def _descriptor_pool(games: tuple[str, ...]) -> _pool.DescriptorPool:
    pool = _pool.DescriptorPool()
    added: set[str] = set()
    for _, shape in _payload_types(games):
        _add_file(pool, shape.file, added)
    return pool


def _add_file(pool: _pool.DescriptorPool, file: FileShape, added: set[str]) -> None:
    if file.name in added:
        return
    for dependency in file.dependencies:
        _add_file(pool, dependency, added)
    proto = descriptor_pb2.FileDescriptorProto()
    file.CopyToProto(proto)
    pool.Add(proto)
    added.add(file.name)


def type_url(full_name: str) -> str:
    """The Any type URL of a payload named `full_name`."""
    return TYPE_URL_PREFIX + full_name


def to_json(message: Message, games: Iterable[str] | None = None, **options: Unpack[JsonOptions]) -> str:
    """`message` as JSON with every Any it holds resolved (json_format.MessageToJson options pass through)."""
    return json_format.MessageToJson(message, descriptor_pool=descriptor_pool(games), **options)


def to_dict(message: Message, games: Iterable[str] | None = None, **options: Unpack[DictOptions]) -> JsonObject:
    """`message` as a JSON-ready dict with every Any it holds resolved."""
    return json_format.MessageToDict(message, descriptor_pool=descriptor_pool(games), **options)


def parse_json(
    text: str | bytes | Mapping[str, object],
    message: Message,
    games: Iterable[str] | None = None,
    **options: Unpack[ParseOptions],
) -> Message:
    """Fill `message` from JSON text (or an already decoded dict); an Any must name a
    payload with its "@type". Raises json_format.ParseError on anything else."""
    pool = descriptor_pool(games)
    if isinstance(text, Mapping):
        return json_format.ParseDict(dict(text), message, descriptor_pool=pool, **options)
    return json_format.Parse(text, message, descriptor_pool=pool, **options)


__all__ = [
    "TYPE_URL_PREFIX",
    "descriptor_pool",
    "parse_json",
    "payload_types",
    "reflected_names",
    "to_dict",
    "to_json",
    "type_url",
]
