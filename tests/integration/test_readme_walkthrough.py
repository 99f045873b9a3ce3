"""The README's walk-through and the client guide's examples run as written, against a stack
started as `make run` starts it (every service its own process, the three games, one
matchmaker, the embedded server in a data directory of its own, on free ports).

The commands are read from the documents' code blocks, so a document and this test cannot
drift apart: every command must exit 0, and the key ones must say what the walk-through says
they do. The only liberty taken: the documents' fixed addresses (`make run`'s ports) are the
test stack's, given as the README says (TABLETOP_GATEWAY, REDIS_URL) or put in their place.
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from deploy.stack import ROOT, Stack

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not (shutil.which("jq") and shutil.which("curl")), reason="the walk-through uses jq and curl"),
]
README = ROOT / "README.md"
CLIENTS = ROOT / "docs" / "clients.md"
EXAMPLES = ROOT / "docs" / "examples"
EDGE, GATEWAY = "http://127.0.0.1:8080", "127.0.0.1:50051"

# What the key commands of the walk-through print (stdout and stderr together), by a piece of
# the command. Each piece must name a command of the walk-through: a command dropped from the
# README fails here, not silently.
SAYS = {
    "tabletop games": "la_isla",
    "bots --game la_isla --players 3": "ended:",
    "--course hills_of_gold": "ended:",
    "--bot search": "ended:",
    "verify $B --json": '"ok": true',
    "replay $B --version 12 --seat 1": "",
    "start $M --seat 0": "",
    "actions $M --seat 0": "0",
    "undo $M --seat 0": "",
    "matches": "el_dorado",
    "verify $M ||": "exit 3",
    "view $C": "clocks: seat 0",
    "admin log $M": "MatchCreated",
    "admin stuck": "",
    "verify --file b.json": "",
    "replay --file b.json --version 40 --seat 1": "",
    "wait $!": "",
    "rating": "mu",
    "leaderboard": "",
}


@dataclass(frozen=True)
class Ran:
    command: str
    code: int
    said: str


def sh_blocks(markdown: str, heading: str = "") -> list[str]:
    """The ```sh code blocks of `markdown` (under `heading` only, up to the next heading of its level)."""
    if heading:
        start = markdown.index(heading)
        level = heading.split(" ", 1)[0] + " "
        rest = markdown[start + len(heading):]
        end = re.search(rf"^{re.escape(level)}", rest, flags=re.MULTILINE)
        markdown = rest[: end.start()] if end else rest
    return re.findall(r"^```sh\n(.*?)^```", markdown, flags=re.MULTILINE | re.DOTALL)


def _uncommented(line: str) -> str:
    """`line` without its comment: a # outside quotes that starts a word."""
    quote = ""
    for at, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (at == 0 or line[at - 1].isspace()):
            return line[:at].rstrip()
    return line.rstrip()


def commands(block: str) -> list[str]:
    """The block's commands, one per logical line (continuations joined), comments left out."""
    found, current = [], ""
    for raw in block.splitlines():
        line = _uncommented(raw)
        if current:
            current += " " + line.strip()
        elif line.strip():
            current = line.strip()
        if current.endswith("\\"):
            current = current[:-1].rstrip()
            continue
        if current:
            found.append(current)
        current = ""
    return found


def run_in_one_shell(lines: list[str], cwd: pathlib.Path, env: dict[str, str], timeout: float) -> list[Ran]:
    """Run the commands one after the other in one bash (so variables carry over, as in a
    terminal), each one's exit code and output kept apart."""
    work = cwd / ".walkthrough"
    work.mkdir(exist_ok=True)
    script = []
    for index, line in enumerate(lines):
        script.append(f"{{ {line}\n}} > {work}/{index}.out 2>&1; echo $? > {work}/{index}.rc")
    (work / "script.sh").write_text("\n".join(script) + "\n")
    subprocess.run(["bash", str(work / "script.sh")], cwd=cwd, env=env, timeout=timeout, check=False)
    ran = []
    for index, line in enumerate(lines):
        rc = work / f"{index}.rc"
        code = int(rc.read_text()) if rc.exists() else -1
        ran.append(Ran(line, code, (work / f"{index}.out").read_text(errors="replace")))
    return ran


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    # As `make run` starts it (deploy/local.py), on free ports and in a data directory of its own.
    data = tmp_path_factory.mktemp("data")
    with Stack(matchmakers=1, data_dir=data, workdir=tmp_path_factory.mktemp("run")) as running:
        yield running


@pytest.fixture
def terminal(stack: Stack, tmp_path: pathlib.Path) -> tuple[pathlib.Path, dict[str, str]]:
    """A directory to type in (with the repository's .venv, as in a checkout) and its environment."""
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    env = {**os.environ, "TABLETOP_HOME": str(tmp_path / "home"), "TABLETOP_GATEWAY": stack.gateway_addr,
           "REDIS_URL": stack.redis_url}
    env.pop("TABLETOP_EXTRA_GAMES", None)
    return tmp_path, env


def test_the_readme_walkthrough_runs_as_written(terminal: tuple[pathlib.Path, dict[str, str]]) -> None:
    cwd, env = terminal
    (block,) = sh_blocks(README.read_text(), "## Play from the command line")
    lines = commands(block)
    for piece in SAYS:
        assert any(piece in line for line in lines), f"the walk-through has no command with {piece!r}"
    # The match ids the walk-through keeps in variables, said at the end.
    ran = run_in_one_shell([*lines, 'echo "B=$B M=$M C=$C Q=$Q"'], cwd, env, timeout=1500)
    for done in ran:
        assert done.code == 0, f"{done.command!r} exited {done.code}:\n{done.said[-3000:]}"
    for piece, said in SAYS.items():
        (first,) = [done for done in ran if piece in done.command][:1]
        assert said in first.said, f"{first.command!r} did not say {said!r}:\n{first.said[-2000:]}"
    ids = dict(item.split("=", 1) for item in ran[-1].said.split())
    assert all(re.fullmatch(r"[0-9a-f]{32}", ids[name]) for name in "BMCQ"), ids
    assert ids["Q"] not in (ids["B"], ids["M"], ids["C"])
    assert (cwd / "b.json").exists() and oct((cwd / "b.json").stat().st_mode & 0o777) == "0o600"


def test_the_readme_curl_example_runs_as_written(stack: Stack, terminal: tuple[pathlib.Path, dict[str, str]]) -> None:
    cwd, env = terminal
    lines = [c.replace(EDGE, stack.edge_url) for block in sh_blocks(README.read_text(), "## Browsers and curl")
             for c in commands(block)]
    assert lines, "the README's edge section has no example"
    for done in run_in_one_shell(lines, cwd, env, timeout=60):
        assert done.code == 0 and '"games"' in done.said, done


def test_the_client_guide_examples_run_as_written(stack: Stack, terminal: tuple[pathlib.Path, dict[str, str]]) -> None:
    cwd, env = terminal
    lines = [c.replace(EDGE, stack.edge_url) for block in sh_blocks(CLIENTS.read_text()) for c in commands(block)]
    assert lines, "docs/clients.md has no example"
    for done in run_in_one_shell(lines, cwd, env, timeout=60):
        assert done.code == 0 and '"games"' in done.said, done


# What each example prints once it has done what its header says.
EXAMPLE_SAYS = {
    "connect_curl.sh": '"code":"already_exists"',
    "connect_node.mjs": "finished at version",
    "grpc_client.py": "finished at version",
}


def usage(example: pathlib.Path) -> str:
    """The command an example's header documents (`NAME=... <runner> docs/examples/<file>`)."""
    for line in example.read_text().splitlines():
        text = line.lstrip("#/ ").strip()
        if text.endswith(f"docs/examples/{example.name}"):
            return text
    raise AssertionError(f"{example} documents no command that runs it")


@pytest.mark.parametrize("name", sorted(EXAMPLE_SAYS))
def test_each_documented_example_runs_as_its_header_says(stack: Stack, name: str) -> None:
    example = EXAMPLES / name
    if name.endswith(".mjs") and not shutil.which("node"):
        pytest.skip("the example needs Node.js 18 or newer")
    command = usage(example).replace(EDGE, stack.edge_url).replace(GATEWAY, stack.gateway_addr)
    game = re.search(r"GAME=(\w+)", command)
    assert game is not None and game.group(1) in stack.games, f"{name} is documented with a game not hosted"
    done = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          check=False, env={**os.environ})
    assert done.returncode == 0, f"{command}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    assert EXAMPLE_SAYS[name] in done.stdout, done.stdout[-2000:]


def test_every_example_in_the_folder_is_run() -> None:
    assert sorted(p.name for p in EXAMPLES.iterdir() if p.is_file()) == sorted(EXAMPLE_SAYS)


def test_the_extraction_reads_commands_as_bash_does() -> None:
    block = 'a x   # note\n  # only a comment\nb "#not" \\\n  -o y  # more\nc=$(d) \n'
    assert commands(block) == ['a x', 'b "#not" -o y', "c=$(d)"]
