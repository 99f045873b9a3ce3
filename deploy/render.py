"""Render the deployment manifests from the game registry: `python -m deploy.render`.

deploy/k8s/tabletop.yaml is rendered whole from deploy/kubernetes.py. deploy/compose.yaml
is hand-written except for the blocks between `# begin generated: <block>` and
`# end generated: <block>`: one rules process per game and the TABLETOP_RULES_ADDRS
that names them all. Both come from `services.games.registry.GAMES`, so a new game
package appears in every manifest with `python -m deploy.render` and no edit by
hand; tests/unit/test_deploy_render.py fails while a committed manifest differs
from its rendering. (deploy/stack.py asks the registry itself at start.)
"""

from __future__ import annotations

import pathlib
import re
from collections.abc import Callable, Mapping, Sequence

from deploy import kubernetes
from deploy.kubernetes import PORT, host_name
from services.games.registry import GAMES

ROOT = pathlib.Path(__file__).resolve().parent
COMPOSE = ROOT / "compose.yaml"
KUBERNETES = ROOT / "k8s" / "tabletop.yaml"
MARKER = re.compile(r"^(?P<indent> *)# begin generated: (?P<block>[a-z_]+)\n.*?^ *# end generated: (?P=block)\n",
                    re.MULTILINE | re.DOTALL)

Block = Callable[[Sequence[str]], list[str]]


def rules_addrs(games: Sequence[str]) -> str:
    return ",".join(f"{game}={host_name(game)}:{PORT}" for game in games)


def compose_addrs(games: Sequence[str]) -> list[str]:
    return [f"TABLETOP_RULES_ADDRS: {rules_addrs(games)}"]


def compose_rules(games: Sequence[str]) -> list[str]:
    lines = []
    for game in games:
        lines += [
            f"{host_name(game)}:",
            "  <<: *service",
            "  command: python -m services.rules",
            f"  environment: {{<<: [*env, *rules-id], TABLETOP_GAME: {game}}}",
        ]
    return lines


BLOCKS: Mapping[pathlib.Path, Mapping[str, Block]] = {
    COMPOSE: {"rules_addrs": compose_addrs, "rules": compose_rules},
}


def render(text: str, blocks: Mapping[str, Block], games: Sequence[str]) -> str:
    """`text` with every generated block rendered again for `games`; every block must occur."""
    seen = set()

    def fill(found: re.Match[str]) -> str:
        indent, block = found["indent"], found["block"]
        if block not in blocks:
            raise ValueError(f"unknown generated block {block}")
        seen.add(block)
        body = [indent + line if line else line for line in blocks[block](games)]
        return "\n".join([f"{indent}# begin generated: {block}", *body, f"{indent}# end generated: {block}"]) + "\n"

    rendered = MARKER.sub(fill, text)
    missing = set(blocks) - seen
    if missing:
        raise ValueError(f"generated blocks missing: {', '.join(sorted(missing))}")
    return rendered


def rendered(path: pathlib.Path, games: Sequence[str] = GAMES) -> str:
    """What `path` should hold for `games` (the built-in games by default)."""
    return render(path.read_text(), BLOCKS[path], games)


def main() -> None:
    texts = {path: rendered(path) for path in BLOCKS} | {KUBERNETES: kubernetes.render(GAMES)}
    for path, text in texts.items():
        if not path.exists() or text != path.read_text():
            path.write_text(text)
            print(f"rendered {path.relative_to(ROOT.parent)}")


if __name__ == "__main__":
    main()
