"""Small machines on one: each process in a cgroup of its own with a CPU quota.

cgroup v1 (a `cpu` hierarchy with cpu.cfs_quota_us / cpu.cfs_period_us) or v2
(cpu.max in the unified hierarchy), whichever this machine has and lets us
write (root). A group with quota q per period p lets its processes run at most
q/p of one core. Where neither is writable the harness says so and runs
uncapped (`CpuGroups.kind` is None).
"""

from __future__ import annotations

import contextlib
import os
import pathlib
from dataclasses import dataclass, field

V1 = pathlib.Path("/sys/fs/cgroup/cpu")
V2 = pathlib.Path("/sys/fs/cgroup")


def detect(v1: pathlib.Path = V1, v2: pathlib.Path = V2) -> tuple[str | None, pathlib.Path | None, str]:
    """(kind "v1"/"v2"/None, the hierarchy's root, why) for this machine."""
    if (v1 / "cpu.cfs_quota_us").exists():
        return _writable("v1", v1)
    controllers = v2 / "cgroup.controllers"
    if controllers.exists() and "cpu" in controllers.read_text().split():
        return _writable("v2", v2)
    return None, None, "no cgroup cpu controller (v1 cpu hierarchy or v2 cpu.max) found"


def _writable(kind: str, root: pathlib.Path) -> tuple[str | None, pathlib.Path | None, str]:
    probe = root / f"tabletop-probe-{os.getpid()}"
    try:
        probe.mkdir()
        probe.rmdir()
    except OSError as error:
        return None, None, f"cgroup {kind} at {root} is not writable ({error.strerror})"
    return kind, root, f"cgroup {kind} at {root}"


def quota_lines(kind: str, cores: float, period_us: int) -> dict[str, str]:
    """The files and values that cap a group at `cores` of one core."""
    quota = max(1000, round(cores * period_us))
    if kind == "v1":
        return {"cpu.cfs_period_us": str(period_us), "cpu.cfs_quota_us": str(quota)}
    return {"cpu.max": f"{quota} {period_us}"}


@dataclass
class CpuGroups:
    """One parent group for a run, a capped child per process."""

    cores: float
    period_us: int = 20_000
    kind: str | None = None
    why: str = ""
    _parent: pathlib.Path | None = None
    _groups: dict[str, pathlib.Path] = field(default_factory=dict)

    @classmethod
    def open(cls, cores: float, period_us: int = 20_000, enabled: bool = True) -> CpuGroups:
        if not enabled:
            return cls(cores, period_us, None, "caps switched off (SCALE_CAP=0)")
        kind, root, why = detect()
        groups = cls(cores, period_us, kind, why)
        if kind is not None and root is not None:
            groups._parent = root / f"tabletop-scale-{os.getpid()}"
            groups._parent.mkdir(exist_ok=True)
            if kind == "v2":
                with contextlib.suppress(OSError):
                    (groups._parent / "cgroup.subtree_control").write_text("+cpu")
        return groups

    @property
    def capped(self) -> bool:
        return self.kind is not None

    def cap(self, name: str, pid: int) -> None:
        """Move process `pid` (all its threads) into its own group, capped at `cores`."""
        if self._parent is None or self.kind is None:
            return
        group = self._groups.get(name)
        if group is None:
            group = self._parent / name
            group.mkdir(exist_ok=True)
            for file, value in quota_lines(self.kind, self.cores, self.period_us).items():
                (group / file).write_text(value)
            self._groups[name] = group
        with contextlib.suppress(ProcessLookupError, OSError):
            (group / "cgroup.procs").write_text(str(pid))

    def throttled(self) -> dict[str, int]:
        """Periods each group was throttled in so far (the kernel's count, cpu.stat)."""
        found: dict[str, int] = {}
        for name, group in self._groups.items():
            with contextlib.suppress(OSError):
                for line in (group / "cpu.stat").read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "nr_throttled":
                        found[name] = int(value)
        return found

    def close(self) -> None:
        """Remove the groups (their processes have ended; a live one goes back to the root)."""
        if self._parent is None:
            return
        root = self._parent.parent
        for group in [*self._groups.values(), self._parent]:
            with contextlib.suppress(OSError):
                for pid in (group / "cgroup.procs").read_text().split():
                    (root / "cgroup.procs").write_text(pid)
            with contextlib.suppress(OSError):
                group.rmdir()
        self._groups.clear()
        self._parent = None


def held(cpu_seconds: float, wall: float, cores: float, slack: float = 0.15) -> bool:
    """Whether a process used no more than its cap over `wall` seconds (with `slack` for
    reading /proc and the cgroup at slightly different moments)."""
    return wall <= 0 or cpu_seconds / wall <= cores * (1 + slack) + 0.005


@dataclass(frozen=True)
class Idle:
    """The machine's CPU time counters (/proc/stat's first line), in ticks."""

    idle: int
    total: int

    @classmethod
    def parse(cls, line: str) -> Idle:
        fields = [int(v) for v in line.split()[1:]]
        # user nice system idle iowait irq softirq steal (guest time is inside user already).
        counted = fields[:8]
        return cls(idle=counted[3] + (counted[4] if len(counted) > 4 else 0), total=sum(counted))

    @classmethod
    def now(cls) -> Idle:
        return cls.parse(pathlib.Path("/proc/stat").read_text().splitlines()[0])


def idle_share(before: Idle, after: Idle) -> float:
    """The share of the machine's CPU time that was idle between two readings."""
    total = after.total - before.total
    return (after.idle - before.idle) / total if total > 0 else 0.0
