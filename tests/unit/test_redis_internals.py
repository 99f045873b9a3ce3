"""redis-py's internals are read from one version and reached into from one module
(services/common/redis/internals.py): another version fails here until they are re-read."""

from __future__ import annotations

import importlib.metadata
import pathlib
import re
import tomllib

from services.common.redis import internals as redis_internals

ROOT = pathlib.Path(__file__).resolve().parents[2]
RE_READ = (
    "services/common/redis/internals.py was read from redis-py {read}, and redis-py {other} is {how}: "
    "re-read every internal its docstring lists against {other}'s source, then set READ_FROM = \"{other}\""
)
# What reaches past redis-py's public API: a private module, the asyncio client's
# module (whose Pipeline redis.asyncio does not export), a pool's or connection's own state.
INTERNAL = re.compile(
    r"redis\._parsers|redis\.(asyncio\.)?(client|connection)\b"
    r"|\._(available_connections|in_use_connections|re_auth_token|condition|writer|reader|sock|parser)\b"
)


def test_the_installed_redis_py_is_the_one_the_internals_were_read_from() -> None:
    installed = importlib.metadata.version("redis")
    assert installed == redis_internals.READ_FROM, RE_READ.format(
        read=redis_internals.READ_FROM, other=installed, how="installed"
    )


def test_the_pinned_redis_py_is_the_one_the_internals_were_read_from() -> None:
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pinned = [d.split("==", 1)[1] for d in dependencies if re.fullmatch(r"redis==\S+", d)]
    assert pinned, "pyproject.toml pins redis-py exactly (redis==x.y.z)"
    assert pinned[0] == redis_internals.READ_FROM, RE_READ.format(
        read=redis_internals.READ_FROM, other=pinned[0], how="pinned in pyproject.toml"
    )


def test_no_other_module_reaches_into_redis_py() -> None:
    """Only modules that use redis-py are read (a game's own `_writer` is not redis-py's)."""
    reaching = []
    for path in sorted([*(ROOT / "services").rglob("*.py"), *(ROOT / "gateway").rglob("*.py")]):
        text = path.read_text()
        internals = path.relative_to(ROOT).as_posix() == "services/common/redis/internals.py"
        if internals or not re.search(r"^\s*(import|from) redis\b", text, re.M):
            continue
        reaching += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in INTERNAL.finditer(text)]
    assert not reaching, f"redis-py internals outside services/common/redis/internals.py: {reaching}"
