"""The Helm chart and the plain manifests rendered from it (deploy/k8s/truthlens.yaml).

Always: values.yaml parses, every `.Values.x.y` a template reads exists in it, and the
committed manifests have what production needs (probes, GPU limits, hooks, security).
When `helm_python` (PyPI helm-python-sdk) or the `helm` CLI is installed, the chart is
also rendered and compared with the committed manifests, and `kubernetes_validate`
(PyPI kubernetes-validate, bundled schemas, offline) checks them when installed.
"""

from __future__ import annotations

import importlib.util
import re
import sys

import pytest

from .support import (
    CAPACITY,
    CHART,
    DEPLOY,
    MANIFESTS,
    celery_queues,
    interactive_lane_first,
    load_yaml,
    load_yaml_docs,
    queue_order,
    queues_of,
)

WORKLOADS = ("web", "detect", "mitigate", "webhooks", "maintenance", "index", "beat")
# The worker Deployments KEDA scales, and the Celery queues (Redis lists) each one scales on.
SCALED = {
    "detect": {"detect_interactive", "detect"},
    "mitigate": {"mitigate_interactive", "mitigate"},
    "webhooks": {"webhooks"},
    "index": {"index"},
}
CRD_GROUPS = ("keda.sh/", "monitoring.coreos.com/")


@pytest.fixture(scope="module")
def values():
    return load_yaml(CHART / "values.yaml")


@pytest.fixture(scope="module")
def docs():
    return load_yaml_docs(MANIFESTS.read_text())


def by_kind(docs, kind):
    return {
        d["metadata"]["name"].removeprefix("truthlens-") or d["metadata"]["name"]: d
        for d in docs
        if d["kind"] == kind
    }


def pod_spec(doc):
    return doc["spec"]["template"]["spec"]


def container(doc):
    containers = pod_spec(doc)["containers"]
    assert len(containers) == 1
    return containers[0]


# --- chart sources ---------------------------------------------------------------------------


def test_chart_metadata():
    chart = load_yaml(CHART / "Chart.yaml")
    assert chart["apiVersion"] == "v2"
    assert chart["name"] == "truthlens"
    assert re.fullmatch(r"\d+\.\d+\.\d+", chart["version"])


def _has_path(values, path):
    node = values
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def test_every_value_a_template_reads_exists_in_values_yaml(values):
    missing = []
    for template in sorted((CHART / "templates").glob("*")):
        text = template.read_text()
        # `{{- $c := .Values.detect }}` makes `$c.x` mean `.Values.detect.x`.
        aliases = dict(re.findall(r"\$(\w+) := \.Values\.([\w.]+)", text))
        refs = [r.split(".") for r in re.findall(r"\$?\.Values\.([\w.]+)", text)]
        for alias, base in aliases.items():
            refs += [
                base.split(".") + r.split(".") for r in re.findall(rf"\${alias}\.([\w.]+)", text)
            ]
        missing += [f"{template.name}: {'.'.join(r)}" for r in refs if not _has_path(values, r)]
    assert not missing


def test_templates_balance_their_actions():
    for template in (CHART / "templates").glob("*"):
        text = template.read_text()
        assert text.count("{{") == text.count("}}"), template.name
        opened = len(re.findall(r"\{\{-?\s*(?:if|range|with|define)\b", text))
        closed = len(re.findall(r"\{\{-?\s*end\b", text))
        assert opened == closed, template.name


def test_secrets_default_to_an_existing_secret(values):
    assert values["secrets"]["existingSecret"]
    secret_template = (CHART / "templates" / "secret.yaml").read_text()
    for key in ("SECRET_KEY", "DATABASE_URL", "REDIS_URL", "TRUTHLENS_ENCRYPTION_KEYS"):
        assert f"  {key}: {{{{ required" in secret_template, key


# --- rendered manifests ----------------------------------------------------------------------


def test_manifests_have_the_required_top_level_fields(docs):
    for doc in docs:
        assert doc["apiVersion"]
        assert doc["kind"]
        assert doc["metadata"]["name"]
        if doc["kind"] not in {"ConfigMap", "Secret", "ServiceAccount"}:
            assert doc["spec"], doc["metadata"]["name"]


def test_every_workload_is_there(docs):
    assert set(by_kind(docs, "Deployment")) == set(WORKLOADS)
    assert set(by_kind(docs, "Job")) == {"migrate"}
    assert set(by_kind(docs, "PodDisruptionBudget")) >= {"web", "detect"}


@pytest.mark.parametrize("kind", ["Deployment", "Job"])
def test_pods_run_as_non_root_read_only_without_capabilities(docs, kind):
    for name, doc in by_kind(docs, kind).items():
        assert pod_spec(doc)["securityContext"]["runAsNonRoot"] is True, name
        assert pod_spec(doc)["automountServiceAccountToken"] is False, name
        ctx = container(doc)["securityContext"]
        assert ctx["readOnlyRootFilesystem"] is True, name
        assert ctx["allowPrivilegeEscalation"] is False, name
        assert ctx["capabilities"]["drop"] == ["ALL"], name
        assert {"name": "tmp", "mountPath": "/tmp"} in container(doc)["volumeMounts"], name


@pytest.mark.parametrize("kind", ["Deployment", "Job"])
def test_pods_take_settings_from_the_config_map_and_the_secret(docs, values, kind):
    for name, doc in by_kind(docs, kind).items():
        refs = container(doc)["envFrom"]
        assert {"secretRef": {"name": values["secrets"]["existingSecret"]}} in refs, name
        assert {"configMapRef": {"name": "truthlens-config"}} in refs, name


def test_web_probes_readiness_and_liveness(docs):
    web = container(by_kind(docs, "Deployment")["web"])
    assert web["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert web["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert {"name": "Host", "value": "localhost"} in web["readinessProbe"]["httpGet"]["httpHeaders"]
    assert {p["name"]: p["containerPort"] for p in web["ports"]} == {"http": 8000, "metrics": 9100}


def test_web_autoscales_on_cpu(docs):
    hpa = by_kind(docs, "HorizontalPodAutoscaler")["web"]
    assert hpa["spec"]["scaleTargetRef"]["name"] == "truthlens-web"
    assert hpa["spec"]["metrics"][0]["resource"]["name"] == "cpu"
    assert "replicas" not in by_kind(docs, "Deployment")["web"]["spec"], "the HPA owns replicas"


def test_detect_worker_asks_for_a_gpu_and_mounts_the_models(docs, values):
    detect = by_kind(docs, "Deployment")["detect"]
    spec, main = pod_spec(detect), container(detect)
    assert main["resources"]["limits"]["nvidia.com/gpu"] == 1
    assert main["image"].endswith("-cuda")
    assert spec["nodeSelector"] == values["detect"]["nodeSelector"]
    assert spec["tolerations"] == values["detect"]["tolerations"]
    assert {"name": "models", "mountPath": "/models", "readOnly": True} in main["volumeMounts"]
    assert any(
        v["name"] == "models" and ("hostPath" in v or "persistentVolumeClaim" in v)
        for v in spec["volumes"]
    )
    assert spec["terminationGracePeriodSeconds"] >= 60


def test_every_celery_queue_has_a_consumer(docs):
    consumed = {
        name: queues_of(container(d)["args"]) for name, d in by_kind(docs, "Deployment").items()
    }
    assert set().union(*consumed.values()) == celery_queues()
    for name, queues in SCALED.items():
        assert consumed[name] == queues, name
    for d in by_kind(docs, "Deployment").values():
        assert interactive_lane_first(queue_order(container(d)["args"]))


def _documented(table_heading: str) -> list[list[str]]:
    """The rows of the table under `table_heading` in docs/capacity.md, cells stripped of
    backticks."""
    text = CAPACITY.read_text()
    section = text[text.index(table_heading) :]
    rows = []
    for line in section.splitlines()[1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if set(cells[0]) <= {"-", ":"} or cells[0] in {"worker", "value"}:
            continue
        rows.append(cells)
    return rows


def documented_thresholds() -> dict[tuple[str, str], str]:
    """(worker, queue) -> listLength, from docs/capacity.md's autoscaling table."""
    return {(r[0], r[1]): r[2] for r in _documented("Autoscaling thresholds (KEDA)")}


def _rendered_thresholds(scaled_objects) -> dict[tuple[str, str], str]:
    return {
        (so["metadata"]["name"].removeprefix("truthlens-"), t["metadata"]["listName"]): t[
            "metadata"
        ]["listLength"]
        for so in scaled_objects
        for t in so["spec"]["triggers"]
    }


def test_keda_scales_each_worker_on_its_own_queue_lengths(docs):
    scaled = by_kind(docs, "ScaledObject")
    lists = {
        name: {t["metadata"]["listName"] for t in so["spec"]["triggers"]}
        for name, so in scaled.items()
    }
    assert lists == SCALED
    for name, so in scaled.items():
        assert so["spec"]["scaleTargetRef"]["name"] == f"truthlens-{name}"
        assert all(t["type"] == "redis" for t in so["spec"]["triggers"])
        assert "replicas" not in by_kind(docs, "Deployment")[name]["spec"], "KEDA owns replicas"


def test_keda_thresholds_are_the_documented_ones(docs, values):
    documented = documented_thresholds()
    assert set(documented) == {(w, q) for w, queues in SCALED.items() for q in queues}
    assert _rendered_thresholds(by_kind(docs, "ScaledObject").values()) == documented
    for (worker, queue), length in documented.items():
        assert values[worker]["keda"]["listLength"][queue] == length


def _capacity_model():
    spec = importlib.util.spec_from_file_location(
        "capacity_model", DEPLOY.parent / "bench" / "capacity_model.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_chart_thresholds_and_counts_follow_from_the_capacity_model(values):
    """bench/capacity_model.py's arithmetic at 100/s gives the chart's KEDA thresholds and its
    replica counts: change an input there and this fails until values.yaml follows."""
    capacity = _capacity_model()
    assert capacity.keda_thresholds() == documented_thresholds()
    at_100 = capacity.model(100, capacity.INPUTS, "gpu-embedded")
    assert values["web"]["autoscaling"]["minReplicas"] == at_100["web_pods"]
    assert values["web"]["replicas"] == at_100["web_pods"]
    assert values["web"]["autoscaling"]["maxReplicas"] == 2 * at_100["web_pods"]
    assert values["web"]["autoscaling"]["targetCPUUtilizationPercentage"] == round(
        100 * capacity.INPUTS["utilisation"]
    )
    assert values["detect"]["keda"]["maxReplicaCount"] == at_100["detect_pods"]
    for worker in ("mitigate", "webhooks"):
        assert values[worker]["keda"]["maxReplicaCount"] == at_100[f"{worker}_pods"], worker
        assert values[worker]["replicas"] == at_100[f"{worker}_pods"], worker
    assert values["mitigate"]["concurrency"] == capacity.INPUTS["mitigate_concurrency"]
    assert values["webhooks"]["concurrency"] == capacity.INPUTS["webhooks_concurrency"]


def test_chart_defaults_are_the_documented_ones(values):
    """docs/capacity.md's "Chart defaults" table names each value it derives."""
    rows = _documented("Chart defaults (100 verifications/s)")
    assert len(rows) >= 10
    for path, expected, *_ in rows:
        node = values
        for part in path.split("."):
            node = node[part]
        assert str(node) == expected, path


def test_beat_is_a_single_replica_recreated(docs):
    beat = by_kind(docs, "Deployment")["beat"]
    assert beat["spec"]["replicas"] == 1
    assert beat["spec"]["strategy"]["type"] == "Recreate"


def test_migrations_run_as_a_pre_install_and_pre_upgrade_hook(docs):
    job = by_kind(docs, "Job")["migrate"]
    assert job["metadata"]["annotations"]["helm.sh/hook"] == "pre-install,pre-upgrade"
    assert {"name": "RUN_MIGRATIONS", "value": "1"} in container(job)["env"]
    assert pod_spec(job)["restartPolicy"] == "Never"
    assert "serviceAccountName" not in pod_spec(job), "the chart's SA does not exist pre-install"
    config = by_kind(docs, "ConfigMap")["config"]
    assert config["metadata"]["annotations"]["helm.sh/hook-weight"] == "-10", (
        "config before the Job"
    )


def test_metrics_ports_are_open_only_to_the_scrapers(docs, values):
    policies = by_kind(docs, "NetworkPolicy")
    web_rules = policies["web"]["spec"]["ingress"]
    metrics_rule = next(r for r in web_rules if r["ports"][0]["port"] == 9100)
    assert metrics_rule["from"] == values["networkPolicy"]["metricsFrom"]
    worker_rule = policies["workers"]["spec"]["ingress"]
    assert worker_rule == [
        {
            "ports": [{"port": values["workers"]["metricsPort"], "protocol": "TCP"}],
            "from": values["networkPolicy"]["metricsFrom"],
        }
    ]
    assert "ingress" not in policies["no-ingress"]["spec"]


@pytest.mark.skipif(
    importlib.util.find_spec("kubernetes_validate") is None,
    reason="kubernetes-validate not installed (pip install kubernetes-validate)",
)
def test_manifests_validate_against_the_kubernetes_schemas(docs):
    import kubernetes_validate

    for doc in docs:
        if doc["apiVersion"].startswith(CRD_GROUPS):
            continue  # CRDs (KEDA, Prometheus operator) have no bundled schema
        kubernetes_validate.validate(doc, "1.30.0", strict=True)


# --- rendering (needs helm_python or helm) ---------------------------------------------------


def _render_module():
    spec = importlib.util.spec_from_file_location(
        "render_chart", DEPLOY / "helm" / "render_chart.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["render_chart"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def render_chart():
    module = _render_module()
    if module.renderer() is None:
        pytest.skip(
            "no chart renderer: pip install helm-python-sdk, or install helm; "
            "the static chart checks above still ran"
        )
    return module


def test_committed_manifests_are_the_rendered_chart(render_chart):
    assert MANIFESTS.read_text() == render_chart.render(), "run: python deploy/helm/render_chart.py"


def test_chart_renders_with_every_option_on(render_chart):
    helm = pytest.importorskip("helm_python", reason="this check renders with helm_python")

    options = {
        "secrets": {
            "existingSecret": "",
            "secretKey": "s",
            "databaseUrl": "postgres://d",
            "redisUrl": "redis://r",
            "encryptionKeys": "k",
        },
        "ingress": {"enabled": True},
        "metrics": {"serviceMonitor": {"enabled": True}, "prometheusRule": {"enabled": True}},
        "keda": {"redis": {"passwordSecretKey": "REDIS_PASSWORD"}},
        "detect": {"modelVolume": {"existingClaim": "models"}, "detector": "/models/x"},
        "extraEnv": [{"name": "EXAMPLE", "value": "1"}],
    }
    with helm.Chart.load(str(CHART)) as chart:
        out = chart.render(options, name="truthlens", namespace="t")
    docs = [d for path, text in out.items() if path.endswith(".yaml") for d in load_yaml_docs(text)]
    kinds = {d["kind"] for d in docs}
    assert {
        "Secret",
        "Ingress",
        "ServiceMonitor",
        "PodMonitor",
        "PrometheusRule",
        "TriggerAuthentication",
    } <= kinds
    rule = next(d for d in docs if d["kind"] == "PrometheusRule")
    assert rule["spec"] == load_yaml(DEPLOY / "prometheus" / "alerts.yml")
    ingress = next(d for d in docs if d["kind"] == "Ingress")
    paths = {p["path"] for r in ingress["spec"]["rules"] for p in r["http"]["paths"]}
    assert "/metrics" not in paths


def test_disruption_budgets_never_block_a_node_drain(docs, values):
    # minAvailable equal to the smallest replica count leaves no voluntary disruption.
    smallest = {
        "web": values["web"]["autoscaling"]["minReplicas"],
        "detect": values["detect"]["keda"]["minReplicaCount"],
        "mitigate": values["mitigate"]["keda"]["minReplicaCount"],
    }
    for name, pdb in by_kind(docs, "PodDisruptionBudget").items():
        spec = pdb["spec"]
        if "minAvailable" in spec:
            assert spec["minAvailable"] < smallest[name], name
        else:
            assert spec["maxUnavailable"] >= 1, name


def _render(options):
    helm = pytest.importorskip("helm_python", reason="this check renders with helm_python")
    with helm.Chart.load(str(CHART)) as chart:
        out = chart.render(options, name="truthlens", namespace="t")
    return [d for path, text in out.items() if path.endswith(".yaml") for d in load_yaml_docs(text)]


def test_scaled_objects_render_with_the_documented_thresholds_when_enabled(render_chart):
    options = {w: {"keda": {"enabled": True}} for w in SCALED}
    options["keda"] = {"redis": {"address": "redis.example:6380", "databaseIndex": "3"}}
    rendered = [d for d in _render(options) if d["kind"] == "ScaledObject"]
    assert _rendered_thresholds(rendered) == documented_thresholds()
    for so in rendered:
        for trigger in so["spec"]["triggers"]:
            assert trigger["metadata"]["address"] == "redis.example:6380"
            assert trigger["metadata"]["databaseIndex"] == "3"


def test_no_scaled_object_renders_when_keda_is_disabled(render_chart, values):
    options = {w: {"keda": {"enabled": False}} for w in SCALED}
    options["keda"] = {"redis": {"passwordSecretKey": "REDIS_PASSWORD"}}
    rendered = _render(options)
    kinds = {d["kind"] for d in rendered}
    assert "ScaledObject" not in kinds
    assert "TriggerAuthentication" not in kinds
    deployments = {
        d["metadata"]["name"].removeprefix("truthlens-"): d
        for d in rendered
        if d["kind"] == "Deployment"
    }
    for worker in SCALED:
        assert deployments[worker]["spec"]["replicas"] == values[worker]["replicas"], worker


def test_one_worker_can_leave_keda_alone(render_chart):
    rendered = _render({"index": {"keda": {"enabled": False}}})
    names = {d["metadata"]["name"] for d in rendered if d["kind"] == "ScaledObject"}
    assert names == {f"truthlens-{w}" for w in SCALED if w != "index"}
