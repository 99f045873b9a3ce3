"""`make profile`: where one process of the stack spends its CPU under make bench's load.

It starts the stack in one shape with one game (dice_hand unless PROFILE_GAME names
another), warms it, then records one process (PROFILE_PROCESS: gateway, match,
rules-<game>, dice, deck, redis) with py-spy while PROFILE_MATCHES matches are played
over Play streams for PROFILE_SECONDS, as `make bench` plays them. It writes py-spy's
raw folded stacks to bench/results/profile-<shape>-<process>-<matches>.txt and prints
the run's CPU per action and the functions with the most samples, on their own
(self) and with what they call (inclusive).

py-spy samples without stopping the process here (--nonblocking). Stopping it for
each sample (py-spy's default, and what --native needs) lands the samples where the
process next enters the kernel, so system calls look far dearer than they are: at 16
matches in process, getpid() was 9.2% of the gateway's stopped samples while strace
counted 31 calls per action, about 4 us of its 1.1 ms. Read without stopping, a stack
is sometimes torn (its outer frames missing), so the own samples are the figure to
trust and the inclusive shares are lower bounds. PROFILE_NATIVE=1 adds the C
frames (gRPC's core, protobuf's upb, libc) at that price; read its system calls with
`strace -c` counts instead (docs/design-notes.md, "Reading a profile").
"""

from __future__ import annotations

import asyncio
import collections
import os
import pathlib
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table

from bench.__main__ import STACK_ENV
from bench.load import load_run, named_pids
from bench.plan import MINIMAL, SHAPES
from deploy.stack import Stack

RESULTS = pathlib.Path(__file__).resolve().parent / "results"
RATE = 200  # samples a second
TOP = 30
console = Console(width=170)


@dataclass(frozen=True)
class Settings:
    shape: str = "inprocess"
    game: str = MINIMAL
    matches: int = 16
    seconds: float = 15.0
    process: str = "gateway"
    native: bool = False

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        d = cls()
        chosen = cls(
            shape=env.get("PROFILE_SHAPE", d.shape),
            game=env.get("PROFILE_GAME", d.game),
            matches=int(env.get("PROFILE_MATCHES", d.matches)),
            seconds=float(env.get("PROFILE_SECONDS", d.seconds)),
            process=env.get("PROFILE_PROCESS", d.process),
            native=env.get("PROFILE_NATIVE", "") not in ("", "0"),
        )
        if chosen.shape not in SHAPES:
            raise SystemExit(f"profile: PROFILE_SHAPE must be one of {', '.join(SHAPES)}")
        if chosen.seconds < 3 or chosen.matches < 1:
            raise SystemExit("profile: PROFILE_SECONDS must be at least 3 and PROFILE_MATCHES at least 1")
        return chosen


@dataclass(frozen=True)
class Samples:
    """Folded stacks counted: each function's samples on its own and with its callees."""

    total: int
    own: collections.Counter[str]
    inclusive: collections.Counter[str]


def fold(lines: Iterable[str]) -> Samples:
    """py-spy's raw format: one stack a line, frames outermost first joined by ';',
    then a space and the stack's sample count. A function that recurses counts once
    per sample in `inclusive`."""
    own: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    total = 0
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not stack or not count.isdigit():
            continue
        samples = int(count)
        frames = stack.split(";")
        total += samples
        own[frames[-1]] += samples
        for frame in set(frames):
            inclusive[frame] += samples
    return Samples(total, own, inclusive)


def _table(title: str, counts: collections.Counter[str], total: int) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("share", justify="right")
    table.add_column("function (file:line)")
    for frame, samples in counts.most_common(TOP):
        table.add_row(f"{100 * samples / total:.1f}%", frame[:150])
    return table


def _spy(pid: int, seconds: float, out: pathlib.Path, native: bool) -> subprocess.Popen[bytes]:
    executable = shutil.which("py-spy") or str(pathlib.Path(sys.executable).with_name("py-spy"))
    if not pathlib.Path(executable).exists():
        raise SystemExit("profile: py-spy is not installed (make setup installs it with the dev dependencies)")
    how = ["--native"] if native else ["--nonblocking"]
    return subprocess.Popen(
        [executable, "record", *how, "-r", str(RATE), "-f", "raw", "-o", str(out),
         "-p", str(pid), "-d", str(int(seconds))],
        stdout=subprocess.DEVNULL,
    )


def main() -> None:
    chosen = Settings.from_env()
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"profile-{chosen.shape}-{chosen.process}-{chosen.matches}.txt"
    games = tuple(dict.fromkeys((MINIMAL, chosen.game)))
    with Stack(games=games, shape=chosen.shape, matchmakers=0, extra_env=STACK_ENV) as stack:
        pids = named_pids(stack)
        if chosen.process not in pids:
            known = ", ".join(sorted(pids))
            raise SystemExit(f"profile: no process {chosen.process!r} in this shape; there are {known}")
        asyncio.run(load_run(stack, chosen.game, min(chosen.matches, 4), 2.0))  # imports, caches, connections
        spy = _spy(pids[chosen.process], chosen.seconds, out, chosen.native)
        time.sleep(1.0)  # py-spy attached before the load starts
        run, failed = asyncio.run(load_run(stack, chosen.game, chosen.matches, chosen.seconds - 2.0))
        if spy.wait() != 0:
            raise SystemExit(f"profile: py-spy failed (exit {spy.returncode}); it needs ptrace rights over the process")
    samples = fold(out.read_text().splitlines())
    if not samples.total:
        raise SystemExit("profile: py-spy recorded no samples")
    cpu = run.cpu_by_process.get(chosen.process, 0.0)
    console.print(
        f"{chosen.shape} {chosen.game} x{chosen.matches}: {run.count} actions ({failed} matches failed), "
        f"{chosen.process} CPU {1000 * cpu / max(run.count, 1):.3f} ms per action, "
        f"the stack's {1000 * run.cpu_seconds / max(run.count, 1):.3f}; {samples.total} samples "
        f"({'native, stopped' if chosen.native else 'Python, not stopped'}) in {out}"
    )
    console.print(_table("own samples", samples.own, samples.total))
    console.print(_table("with callees", samples.inclusive, samples.total))


if __name__ == "__main__":
    main()
