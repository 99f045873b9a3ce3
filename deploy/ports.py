"""Which of `make run`'s fixed ports are taken, and by what: said before anything starts.

A port another program listens on would make one service exit at start with a bind
error deep in its log; the launcher checks them all first and names each busy port
with the process that holds it (from /proc: the listening socket's inode, then the
process that has it open), when this user may see it.
"""

from __future__ import annotations

import pathlib
import socket
from collections.abc import Iterable

PROC = pathlib.Path("/proc")
LISTEN = "0A"  # TCP state of a listening socket in /proc/net/tcp


def busy(ports: Iterable[int]) -> dict[int, str]:
    """Each port of `ports` that cannot be bound on 127.0.0.1, with what holds it ("" if unknown)."""
    taken = {}
    for port in ports:
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                taken[port] = holder(port)
    return taken


def holder(port: int) -> str:
    """"pid N: command line" of the process listening on `port`, or "" if it cannot be seen."""
    inodes = _listening_inodes(port)
    if not inodes:
        return ""
    for process in PROC.iterdir():
        if not process.name.isdigit():
            continue
        try:
            for fd in (process / "fd").iterdir():
                target = str(fd.readlink())
                if target.startswith("socket:[") and target[8:-1] in inodes:
                    command = (process / "cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
                    return f"pid {process.name}: {command[:120]}"
        except OSError:
            continue  # gone meanwhile, or not ours to look into
    return ""


def _listening_inodes(port: int) -> set[str]:
    found = set()
    for table in ("tcp", "tcp6"):
        path = PROC / "net" / table
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == LISTEN and int(local.rsplit(":", 1)[1], 16) == port:
                found.add(inode)
    return found
