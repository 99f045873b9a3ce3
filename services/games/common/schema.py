"""A game's wire schema, declared in its `GameDeclaration` (services/games/common/host.py).

The schema names the proto package, the proto files and the root unions of a
game's actions, events and views. The proto generator (tools/gen_game_protos.py)
renders the protos from it, and the registry builds the game's codec from the
same declaration (services/games/common/gamecodec.py `GameCodec.by_convention`),
so the union options the codec decodes are the ones the protos were rendered
with. Pure: the engines import it; nothing here touches protobuf.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class OneOf:
    """A union of dataclasses on the wire: the message `name` with `oneof kind`."""

    name: str
    # A `A | B | C` type alias; its options are its arguments, in order. Typed
    # object because a type alias of a union has no static type of its own.
    alias: object
    doc: str = ""

    @property
    def options(self) -> tuple[type, ...]:
        # A union of one is the class itself: its only option.
        options = typing.get_args(self.alias) or (self.alias,)
        if not all(isinstance(option, type) for option in options):
            raise TypeError(f"{self.name}: the options of a union must be classes")
        return options


ROLES = ("action", "event", "view")
STANDARD_FILES: Mapping[str, tuple[str, ...]] = {"actions": ("action",), "events": ("event",), "views": ("view",)}


@dataclass(frozen=True)
class GameSchema:
    """Everything the proto generator and the codec need to know about one game's wire format."""

    game: str
    package: str  # e.g. "tabletop.games.el_dorado.v1"; the folder under proto/ follows it
    action: OneOf
    event: OneOf
    view: type
    # Proto file stem -> the roots ("action", "event", "view") it declares. Each
    # type a root reaches goes in the first file (in this order) that reaches it.
    files: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: STANDARD_FILES)
    # Unions used as field types (their messages need a name); the roots need none here.
    unions: tuple[OneOf, ...] = ()

    def __post_init__(self) -> None:
        declared = sorted(role for roles in self.files.values() for role in roles)
        if declared != sorted(ROLES):
            raise ValueError(f"{self.game}: the files must declare each of {ROLES} once, not {declared}")

    def roots(self) -> dict[str, OneOf | type]:
        """Role ("action", "event", "view") -> its union or its view dataclass."""
        return {"action": self.action, "event": self.event, "view": self.view}
