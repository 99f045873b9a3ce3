"""The deployment manifests, checked offline: schemas, and what an operator relies on.

No cluster and no container engine here: the Kubernetes manifest is validated
against the API schemas kubernetes-validate ships (strict: an unknown field
fails), the compose file against the Compose Specification schema that
check-jsonschema ships. Beyond the schemas, each workload must carry what makes
it safe to scale and roll: probes, resources, a disruption budget, secrets from
Secrets only, and internal services reachable inside the cluster only.
"""

from __future__ import annotations

import importlib.resources
import json
from collections.abc import Iterator
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from deploy import capacity, kubernetes, render
from services.games import registry
from services.match import repository

# The oldest Kubernetes minor still widely run (gRPC probes are GA since 1.27) and the newest
# the validator knows: the manifest must hold for both.
KUBERNETES_VERSIONS = ("1.30.0", kubernetes_validate.latest_version())
MANIFEST = render.KUBERNETES


def resources() -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(MANIFEST.read_text()) if doc]


def of_kind(kind: str) -> dict[str, dict[str, Any]]:
    return {doc["metadata"]["name"]: doc for doc in resources() if doc["kind"] == kind}


def containers() -> Iterator[tuple[str, dict[str, Any]]]:
    for name, workload in {**of_kind("Deployment"), **of_kind("StatefulSet")}.items():
        for container in workload["spec"]["template"]["spec"]["containers"]:
            yield name, container


def test_the_committed_kubernetes_manifest_is_its_rendering() -> None:
    assert MANIFEST.read_text() == kubernetes.render(registry.GAMES), "run `python -m deploy.render`"


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_every_kubernetes_resource_validates_against_the_api_schema(version: str) -> None:
    docs = resources()
    assert len(docs) > 20
    for doc in docs:
        kubernetes_validate.validate(doc, version, strict=True)


def test_the_schema_check_refuses_a_misspelt_field() -> None:
    # The strict check can fail: a field the API does not know is an error.
    deployment = next(iter(of_kind("Deployment").values()))
    deployment["spec"]["replica"] = 2
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSIONS[-1], strict=True)


def _compose_schema() -> dict[str, Any]:
    vendor = importlib.resources.files("check_jsonschema.builtin_schemas.vendor")
    loaded: dict[str, Any] = json.loads((vendor / "compose-spec.json").read_text())
    return loaded


def test_the_compose_file_validates_against_the_compose_specification() -> None:
    schema = _compose_schema()
    validator = jsonschema.validators.validator_for(schema)(schema)
    validator.validate(yaml.safe_load(render.COMPOSE.read_text()))
    broken = yaml.safe_load(render.COMPOSE.read_text())
    broken["services"]["match"]["replicas"] = 2  # belongs under deploy:
    assert not validator.is_valid(broken)


def test_every_process_of_the_stack_is_a_deployment_with_a_service_and_a_budget() -> None:
    deployments, services, budgets = of_kind("Deployment"), of_kind("Service"), of_kind("PodDisruptionBudget")
    wanted = {"match", "dice", "deck", "matchmaker", "gateway", "gateway-web", "edge"}
    wanted |= {kubernetes.host_name(game) for game in registry.GAMES}
    assert set(deployments) == wanted
    for name in wanted:
        assert services[name]["spec"]["selector"] == {"app": name}
        assert budgets[name]["spec"]["selector"]["matchLabels"] == {"app": name}
        assert budgets[name]["spec"]["minAvailable"] == 1
    assert "redis" in of_kind("StatefulSet") and "redis" in services


def test_every_stateless_tier_scales_with_an_autoscaler_on_cpu() -> None:
    # Every Deployment is stateless (Redis, the one store, is the StatefulSet): each has
    # an autoscaler on CPU whose range holds the Deployment's reference count.
    autoscalers = of_kind("HorizontalPodAutoscaler")
    deployments = of_kind("Deployment")
    assert set(autoscalers) == set(deployments)
    for name, deployment in deployments.items():
        spec = autoscalers[name]["spec"]
        assert spec["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": name}
        assert spec["metrics"] == [{"type": "Resource", "resource": {
            "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}], name
        assert 2 <= spec["minReplicas"] < spec["maxReplicas"], name
        assert "replicas" not in deployment["spec"], "the autoscaler owns the count"


def test_replicas_and_requests_follow_the_capacity_model() -> None:
    # The figures are written once (deploy/kubernetes.py); the manifest is their sizing for
    # the reference load, so changing a figure or the load changes the manifest.
    deployments, autoscalers = of_kind("Deployment"), of_kind("HorizontalPodAutoscaler")
    load = kubernetes.REFERENCE_LOAD
    for tier in ("gateway", "match", "dice", "deck", "matchmaker"):
        wanted = capacity.need(tier, kubernetes.MEASURED[tier], load, kubernetes.SIZING[tier])
        pod = deployments[tier]["spec"]
        requests = pod["template"]["spec"]["containers"][0]["resources"]["requests"]
        assert autoscalers[tier]["spec"]["minReplicas"] == wanted.replicas, tier
        assert requests == {"cpu": capacity.millicores(wanted.replica_cores),
                            "memory": capacity.mebibytes(wanted.memory_bytes)}, tier
    share = load.share(1 / len(registry.GAMES))
    rules = capacity.need("rules", kubernetes.MEASURED["rules"], share, kubernetes.SIZING["rules"])
    for game in registry.GAMES:
        assert autoscalers[kubernetes.host_name(game)]["spec"]["minReplicas"] == rules.replicas
    # The reference load keeps the busiest tiers above their floor: the model, not the floor, sized them.
    assert autoscalers["gateway"]["spec"]["minReplicas"] > 2 and autoscalers["match"]["spec"]["minReplicas"] > 2


def test_the_match_tiers_cache_bound_is_the_one_the_model_assumes() -> None:
    assert kubernetes.MEASURED["match"].matches_held == repository.CACHE_SIZE


def test_probes_use_grpc_health_on_the_health_only_port() -> None:
    for name, container in containers():
        ready, alive = container["readinessProbe"], container["livenessProbe"]
        if name == "redis":
            assert ready["tcpSocket"]["port"] == 6379
        elif name == "edge":  # HTTP; its /healthz asks the gateway behind it
            assert ready["httpGet"]["path"] == "/healthz"
        else:
            assert ready["grpc"] == {"port": kubernetes.HEALTH_PORT}, name
            assert alive["grpc"] == {"port": kubernetes.HEALTH_PORT, "service": kubernetes.LIVENESS_SERVICE}, name
    assert of_kind("ConfigMap")["tabletop"]["data"]["TABLETOP_HEALTH_PORT"] == str(kubernetes.HEALTH_PORT)


def test_every_container_requests_resources_and_caps_its_memory() -> None:
    for name, container in containers():
        assert {"cpu", "memory"} <= set(container["resources"]["requests"]), name
        assert container["resources"]["limits"]["memory"] == container["resources"]["requests"]["memory"], name


def test_secrets_come_from_mounted_secrets_never_from_the_environment() -> None:
    config = of_kind("ConfigMap")["tabletop"]["data"]
    for name, container in containers():
        env = {item["name"]: item.get("value", "") for item in container.get("env", [])}
        for key, value in {**config, **env}.items():
            if any(word in key for word in ("PASSWORD", "SECRET", "TOKEN_KEYS", "TLS_KEY")) and value:
                assert key.endswith("_FILE") or key == "TABLETOP_TLS_KEY", (name, key)
                assert value.startswith("/secrets/"), (name, key, value)
    for name, deployment in of_kind("Deployment").items():
        volumes = deployment["spec"]["template"]["spec"]["volumes"]
        secrets = [v["secret"]["secretName"] for v in volumes if "secret" in v]
        # One Secret per identity, never another process's.
        assert len(secrets) == (0 if name == "edge" else 1), name
        assert all(secret.startswith("tabletop-") for secret in secrets)


def test_internal_services_are_reachable_inside_the_cluster_only() -> None:
    for name, service in of_kind("Service").items():
        public = service["spec"]["type"] == "LoadBalancer"
        assert public == (name in ("gateway", "edge")), name
    policies = of_kind("NetworkPolicy")
    assert policies["default-deny"]["spec"] == {"podSelector": {}, "policyTypes": ["Ingress"]}
    internal = policies["platform-internal"]["spec"]
    assert internal["podSelector"]["matchExpressions"][0]["values"] == list(kubernetes.PUBLIC_FACING)
    assert internal["ingress"] == [{"from": [{"podSelector": {"matchLabels": {"tabletop/platform": "true"}}}]}]
    edge_labels = of_kind("Deployment")["edge"]["spec"]["template"]["metadata"]["labels"]
    assert "tabletop/platform" not in edge_labels, "the edge holds no secret and must not reach internal services"


def test_pods_run_unprivileged() -> None:
    for name, deployment in of_kind("Deployment").items():
        pod = deployment["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        assert pod["automountServiceAccountToken"] is False, name
        for container in pod["containers"]:
            context = container["securityContext"]
            assert context["readOnlyRootFilesystem"] is True and context["allowPrivilegeEscalation"] is False
            assert context["capabilities"]["drop"] == ["ALL"]
