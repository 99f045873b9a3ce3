"""The client guide's examples (docs/examples) run as a reader would run them, against a real stack."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from deploy.stack import ROOT, Stack

pytestmark = pytest.mark.integration
EXAMPLES = ROOT / "docs" / "examples"


def run(command: list[str], **env: str) -> str:
    done = subprocess.run(
        command, cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq")), reason="the example needs curl and jq")
def test_the_curl_example_plays_a_move_over_connect_json(stack: Stack) -> None:
    out = run(["bash", str(EXAMPLES / "connect_curl.sh")], EDGE=stack.edge_url, GAME="la_isla")
    assert '"@type":"type.googleapis.com/tabletop.games.la_isla.v1.Action"' in out
    assert '"code":"already_exists"' in out
    assert '"status":"MATCH_STATUS_ACTIVE"' in out  # the watch stream's first update


def test_the_python_example_plays_a_whole_match_over_grpc(stack: Stack) -> None:
    out = run([sys.executable, str(EXAMPLES / "grpc_client.py")], GATEWAY=stack.gateway_addr, GAME="pig")
    assert "finished at version" in out and "ranking" in out


@pytest.mark.skipif(not shutil.which("node"), reason="the example needs Node.js 18 or newer")
def test_the_node_example_plays_a_whole_match_over_connect_json(stack: Stack) -> None:
    out = run(["node", str(EXAMPLES / "connect_node.mjs")], EDGE=stack.edge_url, GAME="pig")
    assert "finished at version" in out and "ranking" in out
