"""Bounds on every field a client sends, checked before anything is called.

A client's mistake is always INVALID_ARGUMENT naming the field, never a
failure further in: each string is bounded in length and alphabet, each
integer in range, each enum to its known values, so nothing oversized is
ever stored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from google.protobuf import any_pb2

from services.common.errors import InvalidArgument

MAX_ID = 64
MAX_COMMAND_ID = 128
MAX_OPTIONS = 16
MAX_OPTION_KEY = 32
MAX_OPTION_VALUE = 64
MAX_SEATS = 64
MAX_VERSION = 2**53
MAX_TYPE_URL = 256
MAX_ACTION_BYTES = 64 * 1024
MAX_LIST_LIMIT = 5000

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@-]*")
_MATCH_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*")
_GAME = re.compile(r"[a-z][a-z0-9_]*")
_OPTION_KEY = re.compile(r"[a-z][a-z0-9_]*")
_PRINTABLE = re.compile(r"[\x21-\x7e]*")
_VALUE = re.compile(r"[\x20-\x7e]*")


def _pattern(value: str, pattern: re.Pattern[str], limit: int, field: str, what: str) -> None:
    if len(value) > limit or not pattern.fullmatch(value):
        raise InvalidArgument(f"{field} must be {what}, at most {limit} characters", field)


def match_id(value: str, field: str = "match_id") -> str:
    if not value:
        raise InvalidArgument(f"{field} is required", field)
    _pattern(value, _MATCH_ID, MAX_ID, field, "letters, digits and dashes")
    return value


def game(value: str, required: bool = True) -> str:
    if not value and not required:
        return value
    if not value:
        raise InvalidArgument("game is required", "game")
    _pattern(value, _GAME, MAX_OPTION_KEY, "game", "lower-case letters, digits and _")
    return value


def player_id(value: str, field: str = "player_id") -> str:
    if not value:
        raise InvalidArgument(f"{field} is required", field)
    _pattern(value, _ID, MAX_ID, field, "letters, digits and _ . : @ -")
    return value


def ticket_id(value: str) -> str:
    return player_id(value, "ticket_id")


def command_id(value: str) -> str:
    """Optional; bounded and printable."""
    _pattern(value, _PRINTABLE, MAX_COMMAND_ID, "command_id", "printable ASCII without spaces")
    return value


def options(values: Mapping[str, str], field: str = "config") -> dict[str, str]:
    if len(values) > MAX_OPTIONS:
        raise InvalidArgument(f"{field} has at most {MAX_OPTIONS} entries", field)
    for key, value in values.items():
        _pattern(key, _OPTION_KEY, MAX_OPTION_KEY, f"{field} key", "lower-case letters, digits and _")
        _pattern(value, _VALUE, MAX_OPTION_VALUE, f"{field}[{key}]", "printable ASCII")
    return dict(values)


def count(value: int, field: str, low: int, high: int) -> int:
    if not low <= value <= high:
        raise InvalidArgument(f"{field} must be between {low} and {high}", field)
    return value


def seats(value: int, field: str = "seat_count") -> int:
    return count(value, field, 1, MAX_SEATS)


def seat(value: int, field: str = "seat") -> int:
    return count(value, field, 0, MAX_SEATS - 1)


def version(value: int, field: str = "after_version") -> int:
    return count(value, field, 0, MAX_VERSION)


def limit(value: int, field: str = "limit", high: int = MAX_LIST_LIMIT) -> int:
    return count(value, field, 0, high)


def enum(value: int, known: Mapping[str, int] | object, field: str) -> int:
    """A known value of a proto enum (0, unspecified, allowed: it means 'any')."""
    values = getattr(known, "values_by_number", None)
    if values is None or value not in values:
        raise InvalidArgument(f"{field} has no value {value}", field)
    return value


def action(value: any_pb2.Any) -> any_pb2.Any:
    if not value.type_url:
        raise InvalidArgument("action is required", "action")
    if len(value.type_url) > MAX_TYPE_URL or not _PRINTABLE.fullmatch(value.type_url):
        raise InvalidArgument("action.type_url is malformed", "action")
    if len(value.value) > MAX_ACTION_BYTES:
        raise InvalidArgument(f"an action is at most {MAX_ACTION_BYTES} bytes", "action")
    return value
