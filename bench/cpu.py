"""Server CPU time read from /proc: what a set of processes (and their children) used.

Each process's utime + stime (fields 14 and 15 of /proc/<pid>/stat) covers all
of its threads. Children are found by their parent pid, so a helper a service
starts is counted with it.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Iterable
from dataclasses import dataclass

PROC = pathlib.Path("/proc")
TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Stat:
    pid: int
    parent: int
    ticks: int  # utime + stime


def parse_stat(text: str) -> Stat:
    """The fields of one /proc/<pid>/stat line that matter here.

    The command name (field 2) is in parentheses and may hold spaces or
    parentheses itself, so the fields are counted from the last ')'.
    """
    pid = int(text[: text.index("(")])
    rest = text[text.rindex(")") + 2 :].split()
    # rest[0] is field 3 (state): parent is field 4, utime and stime fields 14 and 15.
    return Stat(pid=pid, parent=int(rest[1]), ticks=int(rest[11]) + int(rest[12]))


def _stats() -> dict[int, Stat]:
    found = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            found[int(entry.name)] = parse_stat((entry / "stat").read_text())
        except (OSError, ValueError):
            continue  # gone while we looked, or not ours to read
    return found


def with_descendants(roots: Iterable[int], stats: dict[int, Stat], apart: Iterable[int] = ()) -> set[int]:
    """`roots` and every process below them in `stats`, except the subtrees of `apart`
    (processes counted under names of their own)."""
    children: dict[int, list[int]] = {}
    for stat in stats.values():
        children.setdefault(stat.parent, []).append(stat.pid)
    found, skipped = set(), set(apart)
    todo = [pid for pid in roots if pid in stats]
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(child for child in children.get(pid, ()) if child not in skipped)
    return found


def cpu_seconds(roots: Iterable[int]) -> dict[int, float]:
    """CPU seconds used so far by each of `roots` and their descendants, by pid."""
    stats = _stats()
    return {pid: stats[pid].ticks / TICKS_PER_SECOND for pid in with_descendants(roots, stats)}


def used_between(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds used between two readings; a process that started in between counts from zero,
    one that ended in between is lost (the kernel keeps its time only for its parent's wait)."""
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())


def cpu_seconds_by_name(named: dict[str, int]) -> dict[str, dict[int, float]]:
    """For each named process: CPU seconds so far of it and its descendants, by pid (one scan
    of /proc). A process is counted once, under the nearest named process above it: a
    harness that launched the stack it measures counts its own CPU, not the stack's again."""
    stats = _stats()
    roots = set(named.values())
    return {
        name: {pid: stats[pid].ticks / TICKS_PER_SECOND for pid in with_descendants([root], stats, roots - {root})}
        for name, root in named.items()
    }


class Meter:
    """The CPU each named process (with its children) uses between `start` and `stop`."""

    def __init__(self, named: dict[str, int]) -> None:
        self.named = named
        self._before: dict[str, dict[int, float]] = {}

    def start(self) -> None:
        self._before = cpu_seconds_by_name(self.named)

    def stop(self) -> dict[str, float]:
        """CPU seconds by name since `start`."""
        after = cpu_seconds_by_name(self.named)
        return {name: used_between(self._before.get(name, {}), used) for name, used in after.items()}
