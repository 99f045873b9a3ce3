"""Files only their owner may read: keys, passwords, tokens."""

from __future__ import annotations

import os
import pathlib


def write_private(path: pathlib.Path, data: bytes | str) -> None:
    """Write `data` to `path` with mode 0600 from the first byte, durably, then rename it
    into place: there is no moment when the secret is readable by others or half-written."""
    raw = data.encode() if isinstance(data, str) else data
    temporary = path.with_name(path.name + ".tmp")
    temporary.unlink(missing_ok=True)
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(raw)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)
