"""The `tabletop` command a player installs is a client of the public API: run in a fresh
interpreter, its player commands import the generated protos, the game registry and
games, the contract/ helpers and the bots library, and nothing else of the server;
the operator's tools (ops/) come in only as plugins, only when one of them runs."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Ours, by top-level package: what the player's command may import.
ALLOWED_PREFIXES = ("cli", "contract", "bots", "services.games")
# Single modules of services/ it may import, each with its reason.
ALLOWED_MODULES = {
    "services": "the namespace of services.games",
    "services.common": "the package of the module below",
    "services.common.security": "the package of the module below",
    # A leaf module (no import of ours): files only their owner may read, for the seats file.
    "services.common.security.private_files": "writes the seats file 0600",
    # The bots' rollouts draw their chance locally, as the dice service derives it.
    "services.dice": "the package of the modules below",
    "services.dice.fair": "the bots' local chance",
    "services.dice.playout": "the bots' local chance",
}
OURS = ("cli", "contract", "bots", "ops", "services", "gateway", "bootstrap", "deploy", "bench", "tools")


def _imported(argv: list[str]) -> list[str]:
    """Our modules loaded once the command `argv` has been set up to run (its plugins added)."""
    probe = (
        "import json, sys\n"
        "from cli import main, plugins\n"
        f"plugins.add_to(main.app, {argv!r})\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {OURS!r})))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded: list[str] = json.loads(done.stdout)
    return loaded


def _outside(loaded: list[str]) -> list[str]:
    return [
        m for m in loaded
        if m not in ALLOWED_MODULES and not any(m == p or m.startswith(p + ".") for p in ALLOWED_PREFIXES)
    ]


def test_the_players_commands_import_nothing_of_the_server() -> None:
    for argv in (["view", "m1"], ["bots", "--game", "la_isla"], ["queue", "--game", "pig"]):
        loaded = _imported(argv)
        assert "cli.main" in loaded
        assert _outside(loaded) == [], argv


def test_an_operator_command_brings_its_plugin_and_only_then() -> None:
    loaded = _imported(["verify", "m1"])
    assert "ops.verify" in loaded and "services.match.audit" in loaded
    assert "ops.admin" not in loaded  # only the plugin the command names
    # The listing (`tabletop`, `tabletop --help`) shows every command, plugins included.
    assert {"ops.admin", "ops.verify"} <= set(_imported(["--help"]))


def test_the_check_above_can_fail() -> None:
    """What the allowlist refuses: a server module, the gateway, the operator's tools."""
    assert _outside(["cli.main", "services.match.app", "gateway.describe", "ops.admin", "services.common.errors"]) == [
        "services.match.app", "gateway.describe", "ops.admin", "services.common.errors"
    ]
