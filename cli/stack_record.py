"""Where `make run` (deploy/local.py) records the running stack: stack.json in its data
directory (the mode, single server or cluster, and the ports). The `tabletop` command
finds the gateway there; the operator's `tabletop admin` finds the store's admin."""

from __future__ import annotations

import json
import os
import pathlib

STACK_RECORD = "stack.json"
REPO = pathlib.Path(__file__).resolve().parents[1]


def data_dir() -> pathlib.Path:
    """`make run`'s data directory: TABLETOP_DATA_DIR, else ./.data, else the repository's."""
    configured = os.environ.get("TABLETOP_DATA_DIR")
    if configured:
        return pathlib.Path(configured)
    here = pathlib.Path(".data")
    return here if here.is_dir() else REPO / ".data"


def recorded(data: pathlib.Path | None = None) -> dict[str, object] | None:
    """What `make run` last wrote about its stack in `data` (no secret in it), or None."""
    path = (data or data_dir()) / STACK_RECORD
    try:
        found = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def recorded_gateway() -> str | None:
    """The gateway address of the last `make run` of the data directory, if it recorded one."""
    found = recorded()
    gateway = found.get("gateway") if found else None
    return gateway if isinstance(gateway, str) and gateway else None
