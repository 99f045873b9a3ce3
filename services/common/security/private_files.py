"""Files only their owner may read: keys, passwords, tokens."""

from __future__ import annotations

import os
import pathlib
import tempfile


def write_private(path: pathlib.Path, data: bytes | str) -> None:
    """Write `data` to `path` with mode 0600 from the first byte, durably, then rename it
    into place: there is no moment when the secret is readable by others or half-written.

    Each write has a temporary file of its own (mkstemp: mode 0600, a fresh name), so two
    writers at once never clobber each other's half-written file; the last rename wins
    whole. (Read-modify-write callers lock around it: see cli/main.py.)"""
    raw = data.encode() if isinstance(data, str) else data
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(raw)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        pathlib.Path(temporary).unlink(missing_ok=True)
        raise
