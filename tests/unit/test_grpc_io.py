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


@pytest.mark.parametrize("process", PROCESSES)
def test_each_process_chooses_grpcs_io_path_before_grpc_is_imported(process: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "gen")])
    seen = subprocess.run(
        [sys.executable, "-c", PROBE.format(process=process)], env=env, cwd=ROOT,
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    assert seen == EXPECTED


def test_an_operators_own_setting_is_kept() -> None:
    env = {**os.environ, "GRPC_EXPERIMENTS": "-some_experiment"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "gen")])
    seen = subprocess.run(
        [sys.executable, "-c", PROBE.format(process="dice")], env=env, cwd=ROOT,
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    assert seen == "-some_experiment"
