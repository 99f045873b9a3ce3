"""Every process sets gRPC's I/O path before grpc is first imported: gRPC's core reads
GRPC_EXPERIMENTS once, at that import, and a setting made later changes nothing."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

from services.common import grpc_io

ROOT = pathlib.Path(__file__).resolve().parents[2]

PROCESSES = ["dice", "deck", "rules", "match", "matchmaker", "gateway", "edge"]
EXPECTED = grpc_io.EXPERIMENTS
# Records GRPC_EXPERIMENTS as it stands when the grpc package is first imported.
PROBE = textwrap.dedent(
    """
    import importlib.abc, os, sys

    class Watch(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "grpc" and "seen" not in Watch.__dict__:
                Watch.seen = os.environ.get("GRPC_EXPERIMENTS", "")
            return None

    sys.meta_path.insert(0, Watch())
    import bootstrap.{process}
    print(getattr(Watch, "seen", "never imported"))
    """
)


def _seen(process: str, grpc_experiments: str | None) -> str:
    """GRPC_EXPERIMENTS as `bootstrap.<process>` left it when grpc was first imported,
    started with `grpc_experiments` in its environment (None: unset)."""
    env = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    if grpc_experiments is not None:
        env["GRPC_EXPERIMENTS"] = grpc_experiments
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "gen")])
    return subprocess.run(
        [sys.executable, "-c", PROBE.format(process=process)], env=env, cwd=ROOT,
        capture_output=True, text=True, check=True,
    ).stdout.strip()


@pytest.mark.parametrize("process", PROCESSES)
def test_each_process_chooses_grpcs_io_path_before_grpc_is_imported(process: str) -> None:
    assert _seen(process, None) == EXPECTED


def test_an_operators_own_setting_is_kept() -> None:
    assert _seen("dice", "-some_experiment") == "-some_experiment"
