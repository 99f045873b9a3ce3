"""The Kubernetes manifest (deploy/k8s/tabletop.yaml), rendered whole from one table of processes.

Every Tabletop process is one row of `workloads()`: its command, its identity (the
Secret it mounts: certificate, key, CA, Redis password), its replicas and whether it
faces the outside. Each row becomes a Deployment, a Service and a
PodDisruptionBudget, with the same probes, resources and hardening; every stateless tier
also gets a HorizontalPodAutoscaler on CPU. Replica counts and CPU and memory requests
follow the capacity model (deploy/capacity.py) for the reference load below, from the
per-tier figures recorded here. One rules process per game comes from the game
registry, so a new game appears here by rendering alone.

`python -m deploy.render` writes the file; tests/unit/test_deploy_manifests.py fails
while the committed file differs from this rendering, and validates it offline
against the Kubernetes schemas.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from deploy.capacity import (
    HPA_UTILISATION,
    Load,
    Sizing,
    TierFigures,
    TierNeed,
    cores_needed,
    mebibytes,
    millicores,
    need,
)
from services.common.rpc.server import LIVENESS_SERVICE as LIVENESS_SERVICE

PORT = 50050
METRICS_PORT = 9100
# The plaintext port that serves gRPC health alone (services/common/rpc/server.py):
# the kubelet's gRPC probe cannot present a client certificate to the mutual-TLS port.
HEALTH_PORT = 8086
IMAGE = "tabletop:latest"
# Where the image keeps the web table (deploy/Dockerfile) and the user it runs as.
WEB_DIR = "/app/web/dist"
IMAGE_USER = 10001
REDIS_IMAGE = "valkey/valkey:8.1"
HEADER = """\
# Tabletop on Kubernetes. Rendered by `python -m deploy.render` from deploy/kubernetes.py:
# edit that table, not this file (tests/unit/test_deploy_manifests.py compares them and
# validates this file against the Kubernetes schemas).
#
# Every process is a Deployment with a Service, a PodDisruptionBudget and a
# HorizontalPodAutoscaler on CPU. Replicas and requests are sized by the capacity model
# (deploy/capacity.py, docs/design-notes.md "Capacity") for 2,000 concurrent matches at
# one action per 5 s each and 20 tickets/s: each autoscaler keeps at least that count and
# grows to three times it; the Deployments name no count of their own (so `kubectl apply`
# never resets one). Probes are gRPC health
# checks on a plaintext port that serves health alone (TABLETOP_HEALTH_PORT): readiness
# asks the overall status (NOT_SERVING while Redis is away or while draining),
# liveness asks "tabletop.liveness" (SERVING while the process runs).
#
# Trust (SECURITY.md): only the gateway (gRPC) and the edge (HTTP: Connect,
# gRPC-Web) are reachable from outside the namespace; the edge relays to
# gateway-web, which trusts the client addresses the edge forwards and so takes
# connections from the edge's pods only (NetworkPolicies below). Internal services
# speak mutual TLS only, and each process mounts only its own Secret: its
# certificate and key, the CA, its Redis password (and, for the gateway, the token
# key ring); no secret travels in an environment variable. Make the files once with
# `python -m deploy.secrets DIR`, then for each identity:
#   kubectl create secret generic tabletop-match \\
#     --from-file=tls.crt=DIR/pki/match.crt --from-file=tls.key=DIR/pki/match.key \\
#     --from-file=ca.crt=DIR/pki/ca.crt --from-file=redis.password=DIR/redis/match.password
# (tabletop-gateway adds --from-file=token-keys.json=DIR/keys/token-keys.json;
# tabletop-rules has no Redis password; tabletop-redis holds users.acl only.)
#
# Redis: one Valkey with an fsynced append-only file on a persistent volume, ACL
# users only (the same server the embedded default runs). For more, point REDIS_URL
# at a managed Redis or a Redis Cluster (REDIS_CLUSTER=1) and drop the StatefulSet.
"""


# The capacity model's figures, per tier, written once (deploy/capacity.py; the table in
# docs/design-notes.md, "Capacity").
# CPU ms per action and per placed ticket (the hot pool's): `make scale` at K=1, a valid
# run (idle 82-88 %, every replica held to 0.05 core; design notes, "Capacity"). A
# process near such a small cap at such low rates pays its fixed costs (ticks,
# heartbeats) and an unbatched wake-up per operation: these are a small machine's
# figures, above what a busier replica spends (`python -m deploy.capacity --from FILE`
# sizes from another run).
# Memory: `python -m bench.scale_memory` (bench/scale_memory.py), the services shape
# with pig: bytes per match from 1,000 matches opened and held, per stream from 2,000
# Play streams held, each on its own connection; idle: a replica's resident set before them.
MEASURED: dict[str, TierFigures] = {
    "gateway": TierFigures(2.6, 3.1, bytes_per_match=6_959, bytes_per_stream=52_118, idle_bytes=83_460_096),
    # The match process caches at most 2,048 matches (services/match/repository.py CACHE_SIZE).
    "match": TierFigures(3.1, 3.0, bytes_per_match=3_752, idle_bytes=80_482_304, matches_held=2048),
    "rules": TierFigures(1.4, 1.7, bytes_per_match=1_335, idle_bytes=77_021_184),
    "dice": TierFigures(0.4, 1.2, bytes_per_match=20, idle_bytes=68_984_832),
    "deck": TierFigures(0.6, 1.9, bytes_per_match=188, idle_bytes=78_299_136),
    # Per action: its bot jobs and ticks, a cost per second more than per action.
    "matchmaker": TierFigures(0.6, 3.9, idle_bytes=79_843_328),
    "redis": TierFigures(1.3, 2.3, bytes_per_match=7_610, idle_bytes=7_704_576),
}
# The edge is no part of `make scale` (it drives the gRPC gateway): its idle size only.
EDGE = TierFigures(0.0, 0.0, idle_bytes=85_479_424)
# The load the manifest is sized for: 2,000 matches in play at once at one action per
# 5 s each (400 actions/s), 20 tickets placed a second, every seat of a 2-seat match
# holding a stream, all through the gRPC gateway (gateway-web and the edge at their
# minimum). Each game's rules process takes an equal share of the matches.
REFERENCE_LOAD = Load(matches=2000, actions_per_match_per_s=0.2, tickets_per_s=20.0)
# Each replica's CPU request: half a core where most of the work is, a quarter for the
# light tiers; Redis runs one thread, so one core is all one server can use.
SIZING: dict[str, Sizing] = {
    "gateway": Sizing(0.5),
    "match": Sizing(0.5),
    "rules": Sizing(0.5),
    "dice": Sizing(0.25),
    "deck": Sizing(0.25),
    "matchmaker": Sizing(0.25),
    "edge": Sizing(0.25),
    "redis": Sizing(1.0, min_replicas=1),
}
# How far past the reference count each autoscaler may go (Redis, one server, does not follow).
BURST = 3


def sized(tier: str, figures: TierFigures, load: Load = REFERENCE_LOAD) -> dict[str, Any]:
    """A Workload's autoscaler bounds and requests: the model's answer for `load`.

    The autoscaler owns the count (the Deployment names none, so `kubectl apply` never
    resets it): at least the reference count the model sizes for the load, at most
    BURST times that."""
    found: TierNeed = need(tier, figures, load, SIZING.get(tier, Sizing()))
    return {
        "replicas": found.replicas,
        "autoscale": (found.replicas, BURST * found.replicas),
        "cpu": millicores(found.replica_cores),
        "memory": mebibytes(found.memory_bytes),
    }


@dataclass(frozen=True)
class Workload:
    """One Tabletop process as a Deployment."""

    name: str
    command: tuple[str, ...]
    # The platform identity whose Secret (tabletop-<identity>) the pods mount; "" for none.
    identity: str
    replicas: int = 2
    # Reached from outside the cluster (a LoadBalancer Service), not only from platform pods.
    public: bool = False
    # (min, max) replicas of a HorizontalPodAutoscaler on CPU; None: a fixed count.
    autoscale: tuple[int, int] | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    cpu: str = "250m"
    memory: str = "256Mi"
    # The edge is an HTTP server with no gRPC health and no platform identity.
    http: bool = False


def host_name(game: str) -> str:
    """The DNS name of a game's rules process (DNS labels allow no underscore)."""
    return "rules-" + game.replace("_", "-")


def workloads(games: Sequence[str]) -> list[Workload]:
    """Every Tabletop process, one rules process per game."""
    rules = [
        Workload(
            host_name(game),
            ("python", "-m", "services.rules"),
            "rules",
            # Rules processes are pure: no Redis user, so no Redis password to read.
            env={"TABLETOP_GAME": game, "TABLETOP_REDIS_PASSWORD_FILE": ""},
            **sized("rules", MEASURED["rules"], REFERENCE_LOAD.share(1 / len(games))),
        )
        for game in games
    ]
    # The browsers' path carries none of the reference load: its minimum, grown by its autoscaler.
    quiet = Load(0, 0.0, 0.0)
    return [
        Workload(
            "match",
            ("python", "-m", "services.match"),
            "match",
            # Replicas behind one Service: a match's calls may reach any of them, so no
            # write leases (with a lease, each switch of replica would wait one out).
            # Route each match to one replica (e.g. by match id) before turning them on.
            env={"TABLETOP_REDIS_USER": "match", "TABLETOP_MATCH_LEASE_MS": "0"},
            **sized("match", MEASURED["match"]),
        ),
        *rules,
        Workload("dice", ("python", "-m", "services.dice"), "dice", env={"TABLETOP_REDIS_USER": "dice"},
                 **sized("dice", MEASURED["dice"])),
        Workload("deck", ("python", "-m", "services.deck"), "deck", env={"TABLETOP_REDIS_USER": "deck"},
                 **sized("deck", MEASURED["deck"])),
        Workload(
            "matchmaker",
            ("python", "-m", "services.matchmaker"),
            "matchmaker",
            env={"TABLETOP_REDIS_USER": "matchmaker"},
            **sized("matchmaker", MEASURED["matchmaker"]),
        ),
        Workload(
            "gateway",
            ("python", "-m", "gateway"),
            "gateway",
            public=True,
            env={"TABLETOP_REDIS_USER": "gateway", "TABLETOP_TOKEN_KEYS_FILE": "/secrets/token-keys.json"},
            **sized("gateway", MEASURED["gateway"]),
        ),
        # The same gateway for the edge's calls only: it keys per-caller limits by the
        # browser addresses the edge forwards, so only the edge may reach it.
        Workload(
            "gateway-web",
            ("python", "-m", "gateway"),
            "gateway",
            env={
                "TABLETOP_REDIS_USER": "gateway",
                "TABLETOP_TOKEN_KEYS_FILE": "/secrets/token-keys.json",
                "TABLETOP_TRUST_FORWARDED": "1",
            },
            **sized("gateway", MEASURED["gateway"], quiet),
        ),
        Workload(
            "edge",
            ("python", "-m", "gateway.edge"),
            "",
            public=True,
            http=True,
            env={
                "TABLETOP_HOST": "0.0.0.0",
                "TABLETOP_PORT": "8080",
                "TABLETOP_METRICS_PORT": str(METRICS_PORT),
                "TABLETOP_GATEWAY_ADDR": f"gateway-web:{PORT}",
                # The web table the image carries (deploy/Dockerfile), served at /.
                "TABLETOP_WEB_DIR": WEB_DIR,
                # Origins of pages elsewhere allowed to call the API (comma-separated).
                "TABLETOP_CORS_ORIGINS": "",
            },
            **sized("edge", EDGE, quiet),
        ),
    ]


def config_map(games: Sequence[str]) -> dict[str, Any]:
    """What every platform process reads (TABLETOP_*): addresses, ports, secret file paths."""
    rules_addrs = ",".join(f"{game}={host_name(game)}:{PORT}" for game in games)
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "tabletop"},
        "data": {
            "REDIS_URL": "redis://redis:6379/0",
            "TABLETOP_HOST": "0.0.0.0",
            "TABLETOP_PORT": str(PORT),
            "TABLETOP_METRICS_PORT": str(METRICS_PORT),
            "TABLETOP_HEALTH_PORT": str(HEALTH_PORT),
            "TABLETOP_TLS_CA": "/secrets/ca.crt",
            "TABLETOP_TLS_CERT": "/secrets/tls.crt",
            "TABLETOP_TLS_KEY": "/secrets/tls.key",
            "TABLETOP_REDIS_PASSWORD_FILE": "/secrets/redis.password",
            "TABLETOP_DICE_ADDR": f"dice:{PORT}",
            "TABLETOP_DECK_ADDR": f"deck:{PORT}",
            "TABLETOP_MATCH_ADDR": f"match:{PORT}",
            "TABLETOP_MATCHMAKER_ADDR": f"matchmaker:{PORT}",
            "TABLETOP_RULES_ADDRS": rules_addrs,
        },
    }


def _probes(w: Workload) -> dict[str, Any]:
    if w.http:  # 200 while the gateway behind the edge answers SERVING
        return {
            "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 5},
            "livenessProbe": {"httpGet": {"path": "/metrics", "port": METRICS_PORT}, "periodSeconds": 10},
        }
    return {
        "readinessProbe": {"grpc": {"port": HEALTH_PORT}, "periodSeconds": 5},
        "livenessProbe": {
            "grpc": {"port": HEALTH_PORT, "service": LIVENESS_SERVICE},
            "periodSeconds": 10,
            "failureThreshold": 3,
        },
    }


def _container(w: Workload) -> dict[str, Any]:
    port = 8080 if w.http else PORT
    ports: list[dict[str, Any]] = [{"name": "http" if w.http else "grpc", "containerPort": port},
             {"name": "metrics", "containerPort": METRICS_PORT}]
    if not w.http:
        ports.append({"name": "health", "containerPort": HEALTH_PORT})
    mounts: list[dict[str, Any]] = [{"name": "tmp", "mountPath": "/tmp"}]
    if w.identity:
        mounts.append({"name": "secrets", "mountPath": "/secrets", "readOnly": True})
    container: dict[str, Any] = {
        "name": w.name,
        "image": IMAGE,
        "command": list(w.command),
    }
    if w.identity:
        container["envFrom"] = [{"configMapRef": {"name": "tabletop"}}]
    container |= {
        "env": [{"name": k, "value": v} for k, v in w.env.items()],
        "ports": ports,
        **_probes(w),
        "resources": {"requests": {"cpu": w.cpu, "memory": w.memory}, "limits": {"memory": w.memory}},
        "volumeMounts": mounts,
        "securityContext": {
            "readOnlyRootFilesystem": True,
            "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
        },
    }
    return container


def _labels(w: Workload) -> dict[str, str]:
    # Platform pods may reach internal services (NetworkPolicy platform-internal); the
    # edge is not one: it holds no secret and reaches gateway-web only.
    return {"app": w.name, "tabletop/platform": "true"} if w.identity else {"app": w.name}


def deployment(w: Workload) -> dict[str, Any]:
    volumes: list[dict[str, Any]] = [{"name": "tmp", "emptyDir": {}}]
    if w.identity:
        volumes.append({"name": "secrets", "secret": {"secretName": f"tabletop-{w.identity}", "defaultMode": 0o400}})
    spec: dict[str, Any] = {}
    if w.autoscale is None:  # with an autoscaler, the autoscaler owns the count
        spec["replicas"] = w.replicas
    spec |= {
        "selector": {"matchLabels": {"app": w.name}},
        # Never below the wanted count while rolling: a new pod is ready before an old one drains.
        "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}},
        "template": {
            "metadata": {
                "labels": _labels(w),
                "annotations": {"prometheus.io/scrape": "true", "prometheus.io/port": str(METRICS_PORT)},
            },
            "spec": {
                # Longer than the process's own drain (TABLETOP_GRACE_SECONDS; the edge cuts streams at 5 s).
                "terminationGracePeriodSeconds": 20,
                "automountServiceAccountToken": False,
                "securityContext": {
                    "runAsNonRoot": True,
                    "runAsUser": IMAGE_USER,
                    "seccompProfile": {"type": "RuntimeDefault"},
                },
                "containers": [_container(w)],
                "volumes": volumes,
            },
        },
    }
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": w.name}, "spec": spec}


def service(w: Workload) -> dict[str, Any]:
    if w.http:
        ports = [{"name": "http", "port": 80, "targetPort": 8080}]
    else:
        ports = [{"name": "grpc", "port": PORT, "targetPort": PORT}]
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": w.name},
        "spec": {"type": "LoadBalancer" if w.public else "ClusterIP", "selector": {"app": w.name}, "ports": ports},
    }


def disruption_budget(w: Workload) -> dict[str, Any]:
    """A voluntary eviction (a node drain) leaves at least one pod serving."""
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": w.name},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": w.name}}},
    }


# The CPU utilisation every autoscaler aims at: the model's, so the reference count leaves its headroom.
UTILISATION = round(100 * HPA_UTILISATION)


def autoscaler(w: Workload) -> dict[str, Any]:
    """Replicas between the floor and the ceiling of `w.autoscale`, on the pods' CPU over their request."""
    assert w.autoscale is not None
    low, high = w.autoscale
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": w.name},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": w.name},
            "minReplicas": low,
            "maxReplicas": high,
            "metrics": [{
                "type": "Resource",
                "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": UTILISATION}},
            }],
        },
    }


def redis_cpu(load: Load = REFERENCE_LOAD) -> str:
    """Redis's CPU request: what the load keeps busy at the autoscalers' utilisation. Past one
    core (one thread), the model's replicas count the masters of a Redis Cluster it needs."""
    sizing = SIZING["redis"]
    return millicores(cores_needed(MEASURED["redis"], load) / sizing.utilisation)


def redis() -> list[dict[str, Any]]:
    """One Valkey: fsync on every write, ACL users from its Secret, data on a persistent volume.
    Its memory holds every match kept, not only those in play (7.6 kB each when opened,
    more as their logs grow): 1 GiB, not the model's share of the concurrent ones."""
    labels = {"app": "redis"}
    container = {
        "name": "redis",
        "image": REDIS_IMAGE,
        "command": ["valkey-server", "--aclfile", "/secrets/users.acl", "--appendonly", "yes",
                    "--appendfsync", "always", "--save", "", "--dir", "/data"],
        "ports": [{"name": "redis", "containerPort": 6379}],
        "readinessProbe": {"tcpSocket": {"port": 6379}, "periodSeconds": 5},
        "livenessProbe": {"tcpSocket": {"port": 6379}, "periodSeconds": 10},
        "resources": {"requests": {"cpu": redis_cpu(), "memory": "1Gi"}, "limits": {"memory": "1Gi"}},
        "volumeMounts": [
            {"name": "data", "mountPath": "/data"},
            {"name": "secrets", "mountPath": "/secrets", "readOnly": True},
        ],
        "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}},
    }
    stateful_set = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "redis"},
        "spec": {
            "serviceName": "redis",
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "automountServiceAccountToken": False,
                    # The image's own user (valkey, 999) owns /data.
                    "securityContext": {"runAsNonRoot": True, "runAsUser": 999, "fsGroup": 999},
                    "containers": [container],
                    "volumes": [{"name": "secrets", "secret": {"secretName": "tabletop-redis", "defaultMode": 0o400}}],
                },
            },
            "volumeClaimTemplates": [{
                "metadata": {"name": "data"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}},
            }],
        },
    }
    svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "redis"},
        "spec": {"type": "ClusterIP", "selector": labels, "ports": [{"name": "redis", "port": 6379}]},
    }
    return [stateful_set, svc]


def _policy(name: str, selector: dict[str, Any], ingress: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name},
        "spec": {"podSelector": selector, "policyTypes": ["Ingress"], "ingress": ingress},
    }


# Pods that take connections from outside the platform (gateway-web: from the edge).
PUBLIC_FACING = ("gateway", "gateway-web", "edge")


def network_policies() -> list[dict[str, Any]]:
    """Nothing reaches a pod unless allowed: the gateway and the edge from anywhere, gateway-web
    from the edge, everything else (Redis too) from platform pods, which still need certificates
    or Redis passwords."""
    deny = _policy("default-deny", {}, [])
    del deny["spec"]["ingress"]
    return [
        deny,
        _policy("gateway-public", {"matchLabels": {"app": "gateway"}},
                [{"ports": [{"port": PORT}]}]),
        _policy("edge-public", {"matchLabels": {"app": "edge"}}, [{"ports": [{"port": 8080}]}]),
        _policy("gateway-web-from-edge", {"matchLabels": {"app": "gateway-web"}},
                [{"from": [{"podSelector": {"matchLabels": {"app": "edge"}}}], "ports": [{"port": PORT}]}]),
        _policy("platform-internal",
                {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": list(PUBLIC_FACING)}]},
                [{"from": [{"podSelector": {"matchLabels": {"tabletop/platform": "true"}}}]}]),
    ]


def documents(games: Sequence[str]) -> list[dict[str, Any]]:
    """Every resource of the manifest, in apply order."""
    docs: list[dict[str, Any]] = [config_map(games), *redis()]
    for w in workloads(games):
        docs += [deployment(w), service(w), disruption_budget(w)]
        if w.autoscale is not None:
            docs.append(autoscaler(w))
    return docs + network_policies()


class _Dumper(yaml.SafeDumper):
    """Plain block YAML, as kubectl prints it: no anchors for repeated label maps."""

    def ignore_aliases(self, data: object) -> bool:
        return True


def render(games: Sequence[str]) -> str:
    """The manifest's text: the header, then one YAML document per resource."""
    body = yaml.dump_all(documents(games), Dumper=_Dumper, sort_keys=False, default_flow_style=False, width=110)
    return HEADER + "---\n" + body
