"""Render the game-dependent parts of the static deployment manifests from the registry.

deploy/compose.yaml and deploy/k8s/tabletop.yaml are hand-written except for
the blocks between `# begin generated: <block>` and `# end generated: <block>`:
one rules process per game and the TABLETOP_RULES_ADDRS that names them all.
Those blocks are rendered from `services.games.registry.GAMES`, so a new game
package appears in every manifest with `python -m deploy.render` and no edit by
hand; tests/unit/test_deploy_render.py fails while a committed manifest differs
from its rendering. (deploy/stack.py asks the registry itself at start.)
"""

from __future__ import annotations

import pathlib
import re
from collections.abc import Callable, Mapping, Sequence

from services.games.registry import GAMES

ROOT = pathlib.Path(__file__).resolve().parent
COMPOSE = ROOT / "compose.yaml"
KUBERNETES = ROOT / "k8s" / "tabletop.yaml"
PORT = 50050
MARKER = re.compile(r"^(?P<indent> *)# begin generated: (?P<block>[a-z_]+)\n.*?^ *# end generated: (?P=block)\n",
                    re.MULTILINE | re.DOTALL)

Block = Callable[[Sequence[str]], list[str]]


def host_name(game: str) -> str:
    """The DNS name of a game's rules process (DNS labels allow no underscore)."""
    return "rules-" + game.replace("_", "-")


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


def kubernetes_rules(games: Sequence[str]) -> list[str]:
    lines = []
    for game in games:
        name = host_name(game)
        lines += [
            "---",
            "apiVersion: apps/v1",
            "kind: Deployment",
            f"metadata: {{name: {name}}}",
            "spec:",
            "  replicas: 2",
            f"  selector: {{matchLabels: {{app: {name}}}}}",
            "  template:",
            "    metadata:",
            f'      labels: {{app: {name}, tabletop/platform: "true"}}',
            '      annotations: {prometheus.io/scrape: "true", prometheus.io/port: "9100"}',
            "    spec:",
            "      terminationGracePeriodSeconds: 20",
            "      automountServiceAccountToken: false",
            "      containers:",
            "        - name: rules",
            "          image: tabletop:latest",
            "          command: [python, -m, services.rules]",
            "          envFrom: [{configMapRef: {name: tabletop}}]",
            "          # Rules processes are pure: no Redis user, so no Redis password to read.",
            "          env:",
            f"            - {{name: TABLETOP_GAME, value: {game}}}",
            '            - {name: TABLETOP_REDIS_PASSWORD_FILE, value: ""}',
            f"          ports: [{{containerPort: {PORT}}}, {{containerPort: 9100}}]",
            "          volumeMounts: [{name: secrets, mountPath: /secrets, readOnly: true}]",
            "          readinessProbe: {httpGet: {path: /metrics, port: 9100}}",
            "          livenessProbe: {httpGet: {path: /metrics, port: 9100}}",
            "          securityContext: {runAsNonRoot: true, readOnlyRootFilesystem: true,"
            " allowPrivilegeEscalation: false}",
            "      volumes: [{name: secrets, secret: {secretName: tabletop-rules, defaultMode: 0400}}]",
            "---",
            "apiVersion: v1",
            "kind: Service",
            f"metadata: {{name: {name}}}",
            "spec:",
            "  type: ClusterIP",
            f"  selector: {{app: {name}}}",
            f"  ports: [{{name: grpc, port: {PORT}}}]",
        ]
    return lines


BLOCKS: Mapping[pathlib.Path, Mapping[str, Block]] = {
    COMPOSE: {"rules_addrs": compose_addrs, "rules": compose_rules},
    KUBERNETES: {"rules_addrs": compose_addrs, "rules": kubernetes_rules},
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
    for path in BLOCKS:
        text = rendered(path)
        if text != path.read_text():
            path.write_text(text)
            print(f"rendered {path.relative_to(ROOT.parent)}")


if __name__ == "__main__":
    main()
