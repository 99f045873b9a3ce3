"""Every game's protos (and Pig's) are rendered from its dataclasses, and no field number ever changes."""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2
from grpc_tools import protoc

from services.games import registry
from services.games.common.schema import GameSchema, OneOf
from tools import gen_game_protos as gen

ROOT = gen.ROOT


@pytest.fixture(scope="module")
def rendered() -> dict[Path, str]:
    return gen.rendered()


def test_every_game_and_the_test_games_have_a_schema() -> None:
    assert {schema.game for schema in gen.schemas()} >= {*registry.GAMES, "pig", "dice_hand"}


def test_committed_protos_and_locks_match_the_dataclasses(rendered: dict[Path, str]) -> None:
    for path, text in rendered.items():
        name = path.relative_to(ROOT)
        assert path.exists(), f"{name} is missing: run `make proto`"
        assert path.read_text() == text, f"{name} differs from the dataclasses: run `make proto`"


def test_the_codecs_decode_the_options_of_the_schema_unions() -> None:
    declared = {schema.game: schema for schema in gen.schemas()}
    for name in [*registry.GAMES, "pig", "dice_hand"]:
        game = registry.declaration(name) if name in registry.GAMES else _test_game(name)
        schema = declared[name]
        assert game.schema is schema
        codec = registry.codec_of(game)
        assert codec.action_types == schema.action.options
        assert codec.event_types == schema.event.options
        assert codec.view_type is schema.view
        assert codec.action_message.DESCRIPTOR.full_name == f"{schema.package}.{schema.action.name}"


def _test_game(name: str) -> registry.SomeDeclaration:
    declared: registry.SomeDeclaration = importlib.import_module(f"tests.fixtures.{name}").GAME
    return declared


def _lock_paths() -> list[Path]:
    return sorted((ROOT / "proto").rglob(gen.LOCK_FILE))


def _entries(lock: gen.Lock) -> dict[tuple[str, str, str], int]:
    return {
        (section, type_name, member): number
        for section, types_ in lock.items()
        for type_name, members in types_.items()
        for member, number in members.items()
    }


def test_a_locked_type_never_gives_one_number_to_two_names() -> None:
    for path in _lock_paths():
        for section, types_ in gen.read_lock(path).items():
            for type_name, members in types_.items():
                numbers = list(members.values())
                assert len(numbers) == len(set(numbers)), f"{path.name}: {section} {type_name} reuses a number"
                assert all(number > 0 for number in numbers), f"{path.name}: {type_name}"


def _history(path: Path) -> list[str]:
    """The text of `path` at every commit that changed it (empty outside a git checkout)."""
    git = shutil.which("git")
    if git is None:
        return []
    name = str(path.relative_to(ROOT))
    log = subprocess.run([git, "log", "--format=%H", "--", name], cwd=ROOT, capture_output=True, text=True)
    texts = []
    for commit in log.stdout.split() if log.returncode == 0 else []:
        shown = subprocess.run([git, "show", f"{commit}:{name}"], cwd=ROOT, capture_output=True, text=True)
        if shown.returncode == 0:
            texts.append(shown.stdout)
    return texts


def test_the_lock_never_renumbers_what_it_ever_numbered() -> None:
    for path in _lock_paths():
        now = _entries(gen.read_lock(path))
        for text in _history(path):
            for key, number in _entries(json.loads(text)).items():
                assert now.get(key) == number, f"{path.relative_to(ROOT)}: {key} was {number}, is {now.get(key)}"


# ---------------------------------------------------------------- the generator on a toy game


class Colour(Enum):
    """A colour."""

    RED = "red"
    BLUE = "blue"  # the second one


@dataclass(frozen=True)
class Ping:
    """Ping `seat`.

    Politely.
    """

    seat: int
    # what was said
    note: str | None
    colour: Colour | None


@dataclass(frozen=True)
class Pong:
    pass


@dataclass(frozen=True)
class Pinged:
    seat: int


@dataclass(frozen=True)
class Table:
    colours: tuple[Colour, ...]
    piles: dict[str, int]
    last: Ping | None


TOY = GameSchema(
    game="toy",
    package="tabletop.toy.v1",
    action=OneOf("Action", Ping | Pong, "A toy action."),
    event=OneOf("Event", Pinged | Pong),
    view=Table,
)


def _toy(lock: gen.Lock) -> dict[str, str]:
    return {path.name: text for path, text in gen.render(TOY, lock).items()}


def test_types_docs_and_comments_follow_the_dataclasses() -> None:
    files = _toy({})
    actions, views = files["actions.proto"], files["views.proto"]
    assert "// Ping `seat`.\n//\n// Politely.\nmessage Ping {\n  int32 seat = 1;\n" in actions
    assert "  // what was said\n  optional string note = 2;\n  optional Colour colour = 3;\n}" in actions
    assert "// A toy action.\nmessage Action {\n  oneof kind {\n    Ping ping = 1;\n    Pong pong = 2;\n" in actions
    assert "message Pong {}" in actions
    assert "  COLOUR_UNSPECIFIED = 0;\n  COLOUR_RED = 1;\n  // the second one\n  COLOUR_BLUE = 2;" in actions
    assert 'import "tabletop/toy/v1/actions.proto";' in views
    assert "  repeated Colour colours = 1;\n  map<string, int32> piles = 2;\n  Ping last = 3;" in views
    assert "message Pong" not in files["events.proto"]


def test_a_new_field_takes_the_next_free_number_and_a_removed_one_is_reserved() -> None:
    old: gen.Lock = {
        "messages": {"Ping": {"seat": 1, "gone": 2, "note": 4}},
        "oneofs": {"Action": {"pong": 1, "dropped": 2}},
        "enums": {"Colour": {"COLOUR_BLUE": 1, "COLOUR_GREEN": 2}},
    }
    files = _toy(old)
    lock = json.loads(files[gen.LOCK_FILE])
    assert lock["messages"]["Ping"] == {"seat": 1, "gone": 2, "note": 4, "colour": 5}
    assert lock["oneofs"]["Action"] == {"pong": 1, "dropped": 2, "ping": 3}
    assert lock["enums"]["Colour"] == {"COLOUR_BLUE": 1, "COLOUR_GREEN": 2, "COLOUR_RED": 3}
    actions = files["actions.proto"]
    assert "  optional string note = 4;\n  optional Colour colour = 5;\n  reserved 2;\n  reserved \"gone\";" in actions
    assert "    Ping ping = 3;\n    Pong pong = 1;\n  }\n  reserved 2;\n  reserved \"dropped\";" in actions
    colour = "  COLOUR_RED = 3;\n  // the second one\n  COLOUR_BLUE = 1;\n  reserved 2;\n  reserved \"COLOUR_GREEN\";"
    assert colour in actions


def test_a_lock_update_keeps_every_entry_of_a_type_no_longer_rendered() -> None:
    old: gen.Lock = {"messages": {"Retired": {"a": 1}}, "oneofs": {}, "enums": {}}
    assert json.loads(_toy(old)[gen.LOCK_FILE])["messages"]["Retired"] == {"a": 1}


@dataclass(frozen=True)
class Loose:
    step: Ping | Pinged


@dataclass(frozen=True)
class Maybe:
    items: tuple[int, ...] | None


@pytest.mark.parametrize(("view", "says"), [(Loose, "name the union"), (Maybe, "cannot be None")])
def test_what_the_conventions_cannot_express_is_refused(view: type, says: str) -> None:
    schema = GameSchema("toy", "tabletop.toy.v1", TOY.action, TOY.event, view)
    with pytest.raises(gen.SchemaError, match=says):
        gen.render(schema, {})


def test_a_render_with_retired_members_compiles_with_its_numbers_reserved(tmp_path: Path) -> None:
    old: gen.Lock = {"messages": {"Ping": {"seat": 1, "gone": 2}}, "enums": {"Colour": {"COLOUR_GREEN": 1}}}
    for path, text in gen.render(TOY, old).items():
        (tmp_path / path.name).write_text(text)
    folder = tmp_path / "tabletop" / "toy" / "v1"
    folder.mkdir(parents=True)
    for proto in tmp_path.glob("*.proto"):
        proto.rename(folder / proto.name)
    out = tmp_path / "set.pb"
    files = [f"tabletop/toy/v1/{stem}.proto" for stem in TOY.files]
    assert protoc.main(["protoc", f"-I{tmp_path}", f"--descriptor_set_out={out}", *files]) == 0
    actions = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file[0]
    ping = next(m for m in actions.message_type if m.name == "Ping")
    assert {f.name: f.number for f in ping.field} == {"seat": 1, "note": 3, "colour": 4}
    assert [(r.start, r.end) for r in ping.reserved_range] == [(2, 3)] and list(ping.reserved_name) == ["gone"]
    colour = next(e for e in actions.enum_type if e.name == "Colour")
    assert {v.name: v.number for v in colour.value}["COLOUR_RED"] == 2
    assert list(colour.reserved_name) == ["COLOUR_GREEN"]


def test_the_check_mode_passes_on_the_committed_files() -> None:
    assert gen.main(["--check"]) == 0
