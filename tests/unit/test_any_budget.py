"""Types that say what flows: `typing.Any` in the platform's annotations stays rare and
explained. Every .py of the platform's packages (the game engines, services/games, aside)
is parsed; an Any in a function's parameters or return, an annotated assignment, or a
type alias (`X: TypeAlias = ...`, `type X = ...`, or a module-level `X = dict[str, Any]`),
string annotations included, counts. The total stays within the budget, and each one
carries a reason: a `# Any: <reason>` comment on its line or one of the three above it,
within its statement (or the comment block right above the statement).

`google.protobuf.any_pb2.Any` (or any other `Any` not imported from typing) is a message
type like any other, precise: it is not counted.
"""

from __future__ import annotations

import ast
import io
import pathlib
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ("services", "gateway", "cli", "ops", "bots", "bootstrap", "contract")
EXCLUDED = (ROOT / "services" / "games",)
BUDGET = 40
LINES_ABOVE = 3
REASON = re.compile(r"^#\s*Any:\s*\S")
TYPING_MODULES = ("typing", "typing_extensions")
# The `type X = ...` statement's node (Python 3.12 on).
TYPE_STATEMENT: type[ast.stmt] | None = getattr(ast, "TypeAlias", None)


@dataclass(frozen=True)
class Use:
    path: pathlib.Path
    line: int  # where the Any is written
    statement: int  # the first line of its statement (a def's first decorator)

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def sources() -> Iterator[pathlib.Path]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if not any(path.is_relative_to(excluded) for excluded in EXCLUDED):
                yield path


def _typing_names(tree: ast.Module) -> tuple[set[str], set[str]]:
    """(names bound to typing.Any, names bound to the typing module) in a module."""
    anys, modules = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in TYPING_MODULES:
            anys |= {alias.asname or alias.name for alias in node.names if alias.name == "Any"}
        elif isinstance(node, ast.Import):
            modules |= {alias.asname or alias.name for alias in node.names if alias.name in TYPING_MODULES}
    return anys, modules


def _is_typing_any(node: ast.AST, anys: set[str], modules: set[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in anys
    return (
        isinstance(node, ast.Attribute) and node.attr == "Any"
        and isinstance(node.value, ast.Name) and node.value.id in modules
    )


def _anys(expr: ast.expr, anys: set[str], modules: set[str]) -> Iterator[int]:
    """The line of each typing.Any in a type expression, inside string annotations too."""
    for node in ast.walk(expr):
        if _is_typing_any(node, anys, modules):
            yield node.lineno
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                inner = ast.parse(node.value.strip(), mode="eval").body
            except SyntaxError:  # not a type: a string that merely mentions Any
                continue
            for _ in _anys(inner, anys, modules):
                yield node.lineno


def _is_alias(node: ast.AnnAssign) -> bool:
    annotation = node.annotation
    name = annotation.id if isinstance(annotation, ast.Name) else getattr(annotation, "attr", "")
    return name == "TypeAlias"


def uses(path: pathlib.Path, source: str) -> list[Use]:
    """Each typing.Any in the annotations and type aliases of one module."""
    tree = ast.parse(source, filename=str(path))
    anys, modules = _typing_names(tree)
    if not anys and not modules:
        return []
    found: list[Use] = []

    def add(statement: ast.stmt, exprs: list[ast.expr]) -> None:
        first = min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", []))])
        for expr in exprs:
            found.extend(Use(path, line, first) for line in _anys(expr, anys, modules))

    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = node.args
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
            add(node, [a.annotation for a in every if a.annotation is not None] + [r for r in [node.returns] if r])
        elif isinstance(node, ast.AnnAssign):
            add(node, [node.annotation] + ([node.value] if node.value is not None and _is_alias(node) else []))
        elif TYPE_STATEMENT is not None and isinstance(node, TYPE_STATEMENT):  # `type X = ...`
            add(node, [node.value])
    for node in tree.body:  # module-level implicit aliases: `Claims = dict[str, Any]`
        if isinstance(node, ast.Assign):
            add(node, [node.value])
    return found


def comments(source: str) -> dict[int, str]:
    """The comment of each line that has one."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {token.start[0]: token.string for token in tokens if token.type == tokenize.COMMENT}


def explained(use: Use, lines: list[str], notes: dict[int, str]) -> bool:
    """A `# Any:` reason on the use's line or up to three above it, not above its
    statement's first line and the comment lines right above that."""
    top = use.statement
    while top > 1 and lines[top - 2].lstrip().startswith("#"):
        top -= 1
    return any(
        REASON.match(notes.get(line, "")) for line in range(max(top, use.line - LINES_ABOVE), use.line + 1)
    )


def unexplained(path: pathlib.Path, source: str) -> list[str]:
    """file:line of each Any of a module without its reason."""
    found = uses(path, source)
    if not found:
        return []
    lines, notes = source.splitlines(), comments(source)
    return [str(use) for use in found if not explained(use, lines, notes)]


def test_any_stays_within_budget() -> None:
    found = [use for path in sources() for use in uses(path, path.read_text())]
    assert len(found) <= BUDGET, (
        f"{len(found)} typing.Any in annotations, over the budget of {BUDGET}: give these precise types\n"
        + "\n".join(map(str, found))
    )


def test_every_any_says_why() -> None:
    missing = [where for path in sources() for where in unexplained(path, path.read_text())]
    assert not missing, (
        "an Any in an annotation needs a `# Any: <reason>` comment on its line or one of the three above it"
        " (or a precise type: Message, object, a TypeVar, a Protocol, a JSON alias, a generated proto class):\n"
        + "\n".join(missing)
    )


SAMPLE = ROOT / "services" / "sample.py"  # never read: the checks below are given its text


def test_the_count_sees_typing_any_in_every_annotation_and_nothing_else() -> None:
    source = """
import typing as t
from typing import Any as A, TypeAlias
from google.protobuf import any_pb2

def f(a: A, *args: "list[A]", b: t.Any = 1, **kw: A) -> dict[str, A]: ...
x: A = 1
Alias: TypeAlias = dict[str, A]
Implicit = list[A]
def g(p: any_pb2.Any) -> "any_pb2.Any": ...
note = "Any string that says Any"
"""
    assert [use.line for use in uses(SAMPLE, source)] == [6, 6, 6, 6, 6, 7, 8, 9]


def test_an_any_without_its_reason_is_named() -> None:
    source = """from typing import Any

# Any: a reason, right above the statement.
def explained(value: Any) -> None: ...

def unexplained(value: Any) -> None: ...

# Any: this reason belongs to the statement below it, not to the one after.
x: Any = 1
y: Any = 2

def long(
    first: int,
    # Any: within the def, up to three lines above.
    second: Any,
) -> None: ...

def far(
    # Any: more than three lines above.
    a: int,
    b: int,
    c: int,
    d: Any,
) -> None: ...

z: Any = 3  # Any: on its line.
w: Any = 4  # said: Any: not a reason of the form `# Any: ...`
"""
    assert unexplained(SAMPLE, source) == [
        "services/sample.py:6", "services/sample.py:10", "services/sample.py:23", "services/sample.py:27",
    ]
