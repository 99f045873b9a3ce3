"""Render every game's action, event and view protos from its dataclasses.

The dataclasses are the source of truth; the protos are derived. The engines are
pure Python and their rules are written against frozen dataclasses, so the proto
files under proto/tabletop/games/<game>/v1/ (and Pig's, proto/tabletop/testing/v1/)
are the wire contract derived from them: never edit them by hand, change the
dataclasses and run `make proto` (the `gen/.generated` rule runs this script
before protoc too).

* Each game declares its wire schema once, in its `GameDeclaration` (`schema`,
  a `GameSchema` of services/games/common/schema.py): proto package, proto file
  stems and the roots they declare, the union type aliases
  (`Action = PlayCard | Move | ...`) and any union used as a field type. The
  registry builds the game's codec from the same declaration.
* Types follow the conventions of services/games/common/protocodec.py: fields
  keep their names; int/str/bool are int32/string/bool; `X | None` is a proto3
  `optional` scalar or enum, or a plain message field; tuples and frozensets
  are `repeated`, dicts `map`; an Enum `Colour` has values `COLOUR_<MEMBER>`
  after `COLOUR_UNSPECIFIED = 0`; a union is a message with `oneof kind`, each
  option named after its class in snake case.
* A type is declared in the first file (in the schema's order) whose roots
  reach it, in the order the walk meets it; later files import earlier ones.
* Field, option and enum numbers never change: proto/<package>/schema.lock.json
  holds them (message -> field -> number, oneof union -> option -> number,
  enum -> value -> number). A new field takes the next number above every number
  the type ever used; a removed field stays in the lock and is rendered as
  `reserved` (number and name), so its number is never reused. A rename is a
  removal plus a new field; the lock holds no types, so give a field whose type
  changes incompatibly a new name rather than keeping its number.
* Comments come from the dataclasses: a class's docstring goes above its
  message or enum; the `# comment` lines just above a field or enum member, and
  the comment trailing it, go above its line.
* Each game and the test games (tests/fixtures: Pig, dice-and-hand, the dropped-in Nim) are checked the same way:
  tests/games/test_schema.py renders them all and names any stale file.

`python tools/gen_game_protos.py` writes what changed; `--check` writes nothing
and exits 1 naming every stale file.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import json
import re
import sys
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script from tools/: the project's packages import

from services.games import registry  # noqa: E402
from services.games.common.host import GameDeclaration  # noqa: E402
from services.games.common.protocodec import enum_prefix, snake  # noqa: E402
from services.games.common.schema import GameSchema, OneOf  # noqa: E402

PROTO = ROOT / "proto"
TEST_GAMES = "tests/fixtures"  # packages declaring a `GAME` of the platform's tests, at any depth
LOCK_FILE = "schema.lock.json"
SCALARS: Mapping[Any, str] = {int: "int32", str: "string", bool: "bool"}

# The lock: section ("messages", "oneofs", "enums") -> type name -> member name -> number.
Lock = dict[str, dict[str, dict[str, int]]]
SECTIONS = ("messages", "oneofs", "enums")


class SchemaError(TypeError):
    """A dataclass the proto conventions cannot express."""


@dataclasses.dataclass(frozen=True)
class FieldSpec:
    name: str
    proto_type: str
    label: str  # "", "optional" or "repeated"
    comment: tuple[str, ...]
    refs: tuple[str, ...]  # the package's types it names (for imports)


@dataclasses.dataclass(frozen=True)
class MessageSpec:
    name: str
    fields: tuple[FieldSpec, ...]
    doc: tuple[str, ...]
    oneof: bool  # every field is an option of `oneof kind`

    @property
    def section(self) -> str:
        return "oneofs" if self.oneof else "messages"

    @property
    def members(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)


@dataclasses.dataclass(frozen=True)
class EnumSpec:
    name: str
    values: tuple[tuple[str, tuple[str, ...]], ...]  # (proto value name, comment)
    doc: tuple[str, ...]
    section = "enums"

    @property
    def members(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.values)


Decl = MessageSpec | EnumSpec


@dataclasses.dataclass(frozen=True)
class Placed:
    file: str
    decl: Decl
    module: str  # the Python module it comes from


# ---------------------------------------------------------------- source text


def docstring(obj: Any) -> tuple[str, ...]:
    """The class's own docstring, not the signature dataclasses put there."""
    doc = obj.__dict__.get("__doc__") if isinstance(obj, type) else None
    if not doc or (dataclasses.is_dataclass(obj) and doc.startswith(f"{getattr(obj, '__name__', '')}(")):
        return ()
    return tuple(inspect.cleandoc(doc).splitlines())


@cache
def _module_classes(module: str) -> dict[str, list[str]]:
    """Top-level class name -> its body's lines, parsed once per module (inspect parses per class)."""
    path = getattr(sys.modules.get(module), "__file__", None)
    if path is None:
        return {}
    lines = Path(path).read_text().splitlines()
    return {
        node.name: lines[node.lineno : node.end_lineno]
        for node in ast.parse("\n".join(lines)).body
        if isinstance(node, ast.ClassDef)
    }


def member_comments(cls: type) -> dict[str, tuple[str, ...]]:
    """`# comment` lines just above a field or enum member, then its trailing one."""
    body = [line for line in _module_classes(cls.__module__).get(cls.__qualname__, []) if line.strip()]
    indent = len(body[0]) - len(body[0].lstrip()) if body else 0
    found: dict[str, tuple[str, ...]] = {}
    pending: list[str] = []
    for line in body:
        if len(line) - len(line.lstrip()) != indent:
            pending = []
            continue
        text = line.strip()
        if text.startswith("#"):
            pending.append(text.lstrip("#").strip())
            continue
        member = re.match(r"(\w+)\s*[:=]", text)
        trailing = re.search(r"\s#\s?(.*)$", text)
        if member:
            found[member.group(1)] = (*pending, *([trailing.group(1).strip()] if trailing else []))
        pending = []
    return {name: lines for name, lines in found.items() if lines}


# ---------------------------------------------------------------- walking the dataclasses


def _strip_none(hint: Any) -> tuple[Any, bool]:
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in args:
        rest = tuple(a for a in args if a is not type(None))
        return (rest[0] if len(rest) == 1 else typing.Union[rest]), True  # noqa: UP007
    return hint, False


class Walk:
    """Collects a schema's messages and enums in the order the roots reach them."""

    def __init__(self, schema: GameSchema) -> None:
        self.schema = schema
        self.named_unions = {frozenset(u.options): u for u in schema.unions}
        self.sources: dict[str, Any] = {}
        self.placed: dict[str, Placed] = {}
        self.file = ""

    def run(self) -> dict[str, Placed]:
        roots = self.schema.roots()
        for stem, names in self.schema.files.items():
            self.file = stem
            for name in names:
                root = roots[name]
                if isinstance(root, OneOf):
                    self.union(root)
                else:
                    self.message(root)
        return {name: self.placed[name] for name in self.sources}

    def _claim(self, name: str, source: Any) -> bool:
        """True the first time `name` is met; two Python types cannot share one proto name."""
        known = self.sources.get(name)
        if known is None:
            self.sources[name] = source
            return True
        if known is not source and known != source:
            raise SchemaError(f"{self.schema.package}: two types are named {name} ({known!r}, {source!r})")
        return False

    def _place(self, decl: Decl, module: str) -> None:
        self.placed[decl.name] = Placed(self.file, decl, module)

    def union(self, union: OneOf) -> str:
        if self._claim(union.name, union.alias):
            options = []
            for cls in union.options:
                if not dataclasses.is_dataclass(cls):
                    raise SchemaError(f"{union.name}: option {cls!r} is not a dataclass")
                options.append(FieldSpec(snake(cls.__name__), self.message(cls), "", (), (cls.__name__,)))
            modules = sorted({cls.__module__ for cls in union.options})
            self._place(MessageSpec(union.name, tuple(options), tuple(union.doc.splitlines()), True), modules[0])
        return union.name

    def message(self, cls: type) -> str:
        name = cls.__name__
        if self._claim(name, cls):
            hints = typing.get_type_hints(cls)
            comments = member_comments(cls)
            fields = tuple(
                self.field(f.name, hints[f.name], comments.get(f.name, ()), name)
                for f in dataclasses.fields(cls)
            )
            self._place(MessageSpec(name, fields, docstring(cls), False), cls.__module__)
        return name

    def enum(self, cls: type[Enum]) -> str:
        name = cls.__name__
        if self._claim(name, cls):
            prefix = enum_prefix(name)
            comments = member_comments(cls)
            values = tuple((f"{prefix}_{m.name.upper()}", comments.get(m.name, ())) for m in cls)
            self._place(EnumSpec(name, values, docstring(cls)), cls.__module__)
        return name

    def field(self, name: str, hint: Any, comment: tuple[str, ...], owner: str) -> FieldSpec:
        inner, optional = _strip_none(hint)
        origin, args = typing.get_origin(inner), typing.get_args(inner)
        where = f"{owner}.{name}"
        if origin in (tuple, frozenset, dict) and optional:
            raise SchemaError(f"{where}: a repeated or map field cannot be None (use an empty one)")
        if origin in (tuple, frozenset):
            if origin is tuple and (len(args) != 2 or args[1] is not Ellipsis):
                raise SchemaError(f"{where}: only tuple[X, ...] maps to a repeated field")
            element = self.type_of(args[0], where)
            return FieldSpec(name, element, "repeated", comment, self._refs(element))
        if origin is dict:
            key, value = self.type_of(args[0], where), self.type_of(args[1], where)
            if key not in SCALARS.values():
                raise SchemaError(f"{where}: a map key is int, str or bool")
            return FieldSpec(name, f"map<{key}, {value}>", "", comment, self._refs(value))
        proto = self.type_of(inner, where)
        is_message = proto not in SCALARS.values() and not (isinstance(inner, type) and issubclass(inner, Enum))
        label = "optional" if optional and not is_message else ""
        return FieldSpec(name, proto, label, comment, self._refs(proto))

    def _refs(self, proto: str) -> tuple[str, ...]:
        return () if proto in SCALARS.values() else (proto,)

    def type_of(self, hint: Any, where: str) -> str:
        if hint in SCALARS:
            return SCALARS[hint]
        if isinstance(hint, type) and issubclass(hint, Enum):
            return self.enum(hint)
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            return self.message(hint)
        if typing.get_origin(hint) in (typing.Union, types.UnionType):
            union = self.named_unions.get(frozenset(typing.get_args(hint)))
            if union is None:
                raise SchemaError(f"{where}: name the union {hint} in the game's GameSchema.unions")
            return self.union(union)
        raise SchemaError(f"{where}: {hint!r} has no proto mapping")


# ---------------------------------------------------------------- numbers


def numbered(locked: Mapping[str, int], names: Iterable[str]) -> dict[str, int]:
    """The locked numbers as they are; each new name takes the next number above all ever used."""
    numbers = dict(locked)
    free = max(numbers.values(), default=0) + 1
    for name in names:
        if name not in numbers:
            numbers[name] = free
            free += 1
    return numbers


def updated_lock(lock: Lock, decls: Iterable[Decl]) -> Lock:
    """`lock` plus numbers for every new member; nothing locked is changed or dropped."""
    new: Lock = {section: {name: dict(old) for name, old in lock.get(section, {}).items()} for section in SECTIONS}
    for decl in decls:
        entries = numbered(new[decl.section].get(decl.name, {}), decl.members)
        new[decl.section][decl.name] = dict(sorted(entries.items(), key=lambda item: item[1]))
    return {section: dict(sorted(new[section].items())) for section in SECTIONS}


def lock_text(lock: Lock) -> str:
    """JSON with one line per type, so a change to a type is a change to its line."""
    sections = []
    for section in SECTIONS:
        types_ = [f"  {json.dumps(name)}: {json.dumps(entries)}" for name, entries in lock[section].items()]
        sections.append(f' "{section}": {{\n' + ",\n".join(types_) + "\n }")
    return "{\n" + ",\n".join(sections) + "\n}\n"


def read_lock(path: Path) -> Lock:
    return json.loads(path.read_text()) if path.exists() else {}


# ---------------------------------------------------------------- rendering


def _comment(lines: Sequence[str], indent: str) -> list[str]:
    return [f"{indent}// {line}".rstrip() for line in lines]


def _reserved(numbers: Mapping[str, int], current: Sequence[str], indent: str) -> list[str]:
    retired = sorted((number, name) for name, number in numbers.items() if name not in current)
    if not retired:
        return []
    return [
        f"{indent}reserved {', '.join(str(number) for number, _ in retired)};",
        f"{indent}reserved {', '.join(json.dumps(name) for _, name in retired)};",
    ]


def render_message(message: MessageSpec, numbers: Mapping[str, int]) -> list[str]:
    indent = "    " if message.oneof else "  "
    body: list[str] = []
    for f in message.fields:
        label = f"{f.label} " if f.label else ""
        body += [*_comment(f.comment, indent), f"{indent}{label}{f.proto_type} {f.name} = {numbers[f.name]};"]
    if message.oneof:
        body = ["  oneof kind {", *body, "  }"]
    body += _reserved(numbers, message.members, "  ")
    head = _comment(message.doc, "")
    if not body:
        return [*head, f"message {message.name} {{}}"]
    return [*head, f"message {message.name} {{", *body, "}"]


def render_enum(enum: EnumSpec, numbers: Mapping[str, int]) -> list[str]:
    body = [f"  {enum_prefix(enum.name)}_UNSPECIFIED = 0;"]
    for value, comment in enum.values:
        body += [*_comment(comment, "  "), f"  {value} = {numbers[value]};"]
    body += _reserved(numbers, enum.members, "  ")
    return [*_comment(enum.doc, ""), f"enum {enum.name} {{", *body, "}"]


def _source_path(module: str) -> str:
    file = getattr(sys.modules[module], "__file__", None) or module
    return str(Path(file).resolve().relative_to(ROOT))


def proto_folder(package: str) -> str:
    return package.replace(".", "/")


def render_file(schema: GameSchema, stem: str, placed: Mapping[str, Placed], lock: Lock) -> str:
    mine = [p for p in placed.values() if p.file == stem]
    needed = {
        placed[ref].file
        for p in mine
        if isinstance(p.decl, MessageSpec)
        for f in p.decl.fields
        for ref in f.refs
        if placed[ref].file != stem
    }
    imports = [f'import "{proto_folder(schema.package)}/{other}.proto";' for other in schema.files if other in needed]
    modules = sorted({p.module for p in mine})
    lines = [
        "// Generated by tools/gen_game_protos.py from the dataclasses of",
        *(f"// {_source_path(module)}" for module in modules),
        "// Do not edit: change the dataclasses and run `make proto`.",
        'syntax = "proto3";',
        "",
        f"package {schema.package};",
    ]
    if imports:
        lines += ["", *imports]
    for p in mine:
        numbers = lock[p.decl.section][p.decl.name]
        lines += [""]
        lines += render_message(p.decl, numbers) if isinstance(p.decl, MessageSpec) else render_enum(p.decl, numbers)
    return "\n".join(lines) + "\n"


def render(schema: GameSchema, lock: Lock) -> dict[Path, str]:
    """Every file of the schema's package (its protos and its lock) -> its text."""
    placed = Walk(schema).run()
    new_lock = updated_lock(lock, (p.decl for p in placed.values()))
    folder = PROTO / proto_folder(schema.package)
    files = {folder / f"{stem}.proto": render_file(schema, stem, placed, new_lock) for stem in schema.files}
    files[folder / LOCK_FILE] = lock_text(new_lock)
    return files


# ---------------------------------------------------------------- the command


def schemas() -> list[GameSchema]:
    """The schema of every declared game: the built-in games, then the test games."""
    found = [registry.declaration(name).schema for name in registry.GAMES]
    for path in sorted((ROOT / TEST_GAMES).rglob("__init__.py")):
        package = importlib.import_module(".".join(path.parent.relative_to(ROOT).parts))
        declared = getattr(package, "GAME", None)
        if isinstance(declared, GameDeclaration):
            found.append(declared.schema)
    return found


def rendered() -> dict[Path, str]:
    """Every generated file of every game -> the text it should have."""
    files: dict[Path, str] = {}
    for schema in schemas():
        files.update(render(schema, read_lock(PROTO / proto_folder(schema.package) / LOCK_FILE)))
    return files


def stale(files: Mapping[Path, str]) -> list[Path]:
    return [path for path, text in files.items() if not path.exists() or path.read_text() != text]


def main(argv: Sequence[str]) -> int:
    files = rendered()
    outdated = stale(files)
    if "--check" in argv:
        for path in outdated:
            print(f"{path.relative_to(ROOT)} differs from the dataclasses: run `make proto`", file=sys.stderr)
        return 1 if outdated else 0
    for path in outdated:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(files[path])
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
