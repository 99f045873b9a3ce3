"""Commands other installed packages add to `tabletop`, so the player's command needs
nothing of the server. A package names them as entry points (pyproject.toml):

* group `tabletop.commands`: a typer app (a command group, as `admin`) or a function
  (one command, as `verify`), under the entry point's name;
* group `tabletop.archives`: what reads an exported match file offline (`replay`),
  which `tabletop replay --file` calls.

This repository's operator tools (ops/) are such a package. A plugin is imported only
when its command runs, or for `--help` (which lists every command).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib.metadata import EntryPoint, entry_points

import typer

COMMANDS = "tabletop.commands"
ARCHIVES = "tabletop.archives"


def add_to(app: typer.Typer, argv: Sequence[str]) -> None:
    """Every plugin command `argv` may run: those it names, or all where it names nothing
    (`tabletop`, `tabletop --help`: the listing)."""
    words = {arg for arg in argv if not arg.startswith("-")}
    for point in entry_points(group=COMMANDS):
        if not words or point.name in words:
            _add(app, point)


def _add(app: typer.Typer, point: EntryPoint) -> None:
    command = point.load()
    if isinstance(command, typer.Typer):
        app.add_typer(command, name=point.name)
    else:
        app.command(point.name)(command)


def load(group: str, name: str) -> Callable[..., object]:
    """The plugin `name` of `group`; a usage error naming what to install when it is absent."""
    for point in entry_points(group=group, name=name):
        found: Callable[..., object] = point.load()
        return found
    raise typer.BadParameter(f"this needs the operator tools ({group}: {name}), which are not installed")
