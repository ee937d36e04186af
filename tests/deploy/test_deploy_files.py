"""Compose, Prometheus, Grafana and settings files: valid, consistent with the app.

Runs without Docker, helm, a network or Django:
    pytest -p no:django tests/deploy -q
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

from .support import (
    CHART,
    DEPLOY,
    MANIFESTS,
    OPERATIONS,
    ROOT,
    app_env_reads,
    celery_queues,
    documented_settings,
    env_example,
    interactive_lane_first,
    load_yaml,
    load_yaml_docs,
    queue_order,
    queues_of,
)

YAML_FILES = [
    DEPLOY / "compose.yaml",
    DEPLOY / "prometheus" / "prometheus.yml",
    DEPLOY / "prometheus" / "alerts.yml",
    CHART / "Chart.yaml",
    CHART / "values.yaml",
    CHART / "files" / "alerts.yml",
]
APP_SERVICES = {
    "web",
    "detect-worker",
    "detect-worker-gpu",
    "mitigate-worker",
    "maintenance-worker",
    "index-worker",
    "beat",
}
# Metrics the app exports today (observability/metrics.py, django-prometheus) and the ones the
# workers are to export (docs/operations.md, "Metrics"). Alerts and panels may use only these.
KNOWN_METRICS = {
    "up",
    "django_http_requests_total_by_method_total",
    "django_http_responses_total_by_status_total",
    "django_http_requests_latency_seconds_by_view_method_bucket",
    "django_http_exceptions_total_by_type_total",
    "truthlens_detections_total",
    "truthlens_score_bucket",
    "truthlens_latency_seconds_bucket",
    "truthlens_iterations_bucket",
    "truthlens_iterations_sum",
    "truthlens_iterations_count",
    "truthlens_webhook_attempts_total",
    "truthlens_jobs_failed_total",
    "truthlens_models_used",
    "truthlens_queue_depth",
    "truthlens_worker_tasks_total",
    "truthlens_worker_task_seconds_bucket",
}
# Hosts of package registries, image registries and CDNs must not be named in committed
# deploy files (the PyTorch index comes in as the TORCH_INDEX_URL build argument). Debian's
# package `docker.io` is no host: only `docker.io/` (an image path) counts.
FORBIDDEN_HOSTS = re.compile(
    r"pytorch\.org|pypi\.org|pythonhosted\.org|docker\.io/|index\.docker\.io|ghcr\.io|quay\.io|nvcr\.io"
    r"|registry\.k8s\.io|gcr\.io|helm\.ngc|githubusercontent\.com"
)


@pytest.fixture(scope="module")
def compose():
    return load_yaml(DEPLOY / "compose.yaml")


@pytest.fixture(scope="module")
def alert_rules():
    return [
        rule
        for group in load_yaml(DEPLOY / "prometheus" / "alerts.yml")["groups"]
        for rule in group["rules"]
    ]


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_yaml_file_parses_without_duplicate_keys(path):
    assert isinstance(load_yaml(path), dict)


def test_rendered_manifests_parse():
    docs = load_yaml_docs(MANIFESTS.read_text())
    assert len(docs) > 10


# --- compose ----------------------------------------------------------------------------


def test_compose_has_every_service(compose):
    assert set(compose["services"]) >= APP_SERVICES | {"postgres", "redis", "migrate", "prometheus"}


@pytest.mark.parametrize("service", ["postgres", "redis", "web"])
def test_stateful_and_web_services_have_healthchecks(compose, service):
    check = compose["services"][service]["healthcheck"]
    assert check["test"]
    assert check["interval"]
    assert check["retries"]


@pytest.mark.parametrize("service", sorted(APP_SERVICES))
def test_app_services_start_after_migrations_and_healthy_stores(compose, service):
    deps = compose["services"][service]["depends_on"]
    assert deps["migrate"]["condition"] == "service_completed_successfully"
    assert deps["postgres"]["condition"] == "service_healthy"
    assert deps["redis"]["condition"] == "service_healthy"


def test_migrate_is_a_one_shot_that_asks_the_entrypoint_to_migrate(compose):
    migrate = compose["services"]["migrate"]
    assert migrate["restart"] == "no"
    assert migrate["environment"]["RUN_MIGRATIONS"] == "1"
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"


def test_stores_keep_their_data_in_volumes(compose):
    assert any(
        v.endswith(":/var/lib/postgresql/data") for v in compose["services"]["postgres"]["volumes"]
    )
    redis = compose["services"]["redis"]
    assert "--appendonly" in redis["command"]
    assert "yes" in redis["command"]
    assert any(v.endswith(":/data") for v in redis["volumes"])


def test_gpu_worker_is_behind_a_profile_and_reserves_a_gpu(compose):
    gpu = compose["services"]["detect-worker-gpu"]
    assert gpu["profiles"] == ["gpu"]
    device = gpu["deploy"]["resources"]["reservations"]["devices"][0]
    assert device["driver"] == "nvidia"
    assert "gpu" in device["capabilities"]
    assert any(":/models:" in str(v) or str(v).endswith(":/models") for v in gpu["volumes"])
    assert gpu["build"]["dockerfile"] == "deploy/docker/Dockerfile.cuda"
    assert "profiles" not in compose["services"]["detect-worker"], "CPU detect runs by default"


def test_every_celery_queue_has_a_consumer_in_compose(compose):
    consumed = {
        name: queues_of(svc.get("command", [])) for name, svc in compose["services"].items()
    }
    assert set().union(*consumed.values()) == celery_queues()
    assert consumed["mitigate-worker"] == {"mitigate_interactive", "mitigate", "webhooks"}
    assert consumed["detect-worker"] == consumed["detect-worker-gpu"]
    assert consumed["detect-worker"] == {"detect_interactive", "detect"}
    assert consumed["index-worker"] == {"index"}
    for svc in compose["services"].values():
        assert interactive_lane_first(queue_order(svc.get("command", [])))


def test_the_dev_worker_commands_read_the_interactive_lanes_first():
    procfile = (DEPLOY / "supervisord.dev.conf").read_text()  # `make run`
    makefile = (ROOT / "Makefile").read_text()
    for text in (procfile, makefile):
        lines = [ln for ln in text.splitlines() if "celery -A workers worker" in ln]
        orders = [queue_order(ln.split()) for ln in lines]
        # the worker takes every queue but `index`, which its own process (the indexer) takes
        assert [set(order) for order in orders] == [celery_queues() - {"index"}, {"index"}]
        assert all(interactive_lane_first(order) for order in orders)


def test_exactly_one_beat(compose):
    beats = [n for n, s in compose["services"].items() if "beat" in s.get("command", [])]
    assert beats == ["beat"]
    assert (
        "deploy" not in compose["services"]["beat"]
        or compose["services"]["beat"]["deploy"].get("replicas", 1) == 1
    )


def test_prometheus_mounts_the_scrape_config_and_rules(compose):
    volumes = compose["services"]["prometheus"]["volumes"]
    assert "./prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro" in volumes
    assert "./prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro" in volumes


def test_compose_interpolations_are_documented_in_env_example():
    used = set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)", (DEPLOY / "compose.yaml").read_text()))
    missing = (
        used - set(env_example()) - {"TRUTHLENS_ENV_FILE", "TRUTHLENS_HTTP_PORT", "PROMETHEUS_PORT"}
    )
    assert not missing, f"compose.yaml uses undocumented variables: {sorted(missing)}"


def _compose_cli() -> list[str] | None:
    if shutil.which("docker"):
        probe = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True)
        if probe.returncode == 0:
            return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    return None


def test_docker_compose_config_accepts_the_file(tmp_path):
    cli = _compose_cli()
    if cli is None:
        message = "neither `docker compose` nor `docker-compose` is installed"
        if os.environ.get("CI"):  # scripts/install-compose.sh installs one: in CI it must be there
            pytest.fail(message)
        pytest.skip(message + "; YAML checks above still ran")
    # `config` only resolves the file: no daemon, no image, no network.
    result = subprocess.run(
        [
            *cli,
            "-f",
            str(DEPLOY / "compose.yaml"),
            "--env-file",
            str(DEPLOY / ".env.example"),
            "--profile",
            "gpu",
            "config",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(tmp_path),
            "TRUTHLENS_ENV_FILE": ".env.example",
        },
    )
    assert result.returncode == 0, result.stderr


# --- settings documentation ---------------------------------------------------------------


def test_every_env_var_the_app_reads_is_documented():
    documented = documented_settings() | set(env_example())
    missing = {name: where for name, where in app_env_reads().items() if name not in documented}
    assert not missing, (
        f"document these in docs/settings.md's table or deploy/.env.example: {missing}"
    )


def test_env_example_sets_only_variables_someone_reads():
    compose_vars = set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)", (DEPLOY / "compose.yaml").read_text()))
    readers = set(app_env_reads()) | compose_vars | {"COMPOSE_PROJECT_NAME", "TORCH_CUDA_INDEX_URL"}
    unknown = set(env_example()) - readers
    assert not unknown, f".env.example sets variables nothing reads (typo?): {sorted(unknown)}"


def test_env_example_secrets_are_placeholders():
    env = env_example()
    assert env["SECRET_KEY"] == "change-me"
    assert env["TRUTHLENS_ENCRYPTION_KEYS"] == ""
    assert env["DEBUG"] == "false"
    assert env["TRUTHLENS_REQUIRE_SECRET_KEY"] == "true"


def test_chart_config_keys_are_settings_the_app_reads():
    config = load_yaml(CHART / "values.yaml")["config"]
    unknown = set(config) - set(app_env_reads())
    assert not unknown, f"values.yaml config sets variables the app never reads: {sorted(unknown)}"


# --- Prometheus ---------------------------------------------------------------------------


def test_alert_rules_have_the_prometheus_rule_structure(alert_rules):
    groups = load_yaml(DEPLOY / "prometheus" / "alerts.yml")["groups"]
    assert all(g["name"] and g["rules"] for g in groups)
    for rule in alert_rules:
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", rule["alert"])
        assert isinstance(rule["expr"], str)
        assert rule["expr"].strip()
        assert re.fullmatch(r"\d+[smhd]", str(rule["for"])), rule["alert"]
        assert rule["labels"]["severity"] in {"page", "warn"}
        assert rule["annotations"]["summary"]
        assert rule["annotations"]["runbook"]
        assert set(rule) <= {"alert", "expr", "for", "labels", "annotations", "keep_firing_for"}


def test_alert_names_are_unique(alert_rules):
    names = [r["alert"] for r in alert_rules]
    assert len(names) == len(set(names))


def test_alert_expressions_are_balanced_and_use_known_metrics(alert_rules):
    for rule in alert_rules:
        expr = rule["expr"]
        for opening, closing in ("()", "[]", "{}"):
            assert expr.count(opening) == expr.count(closing), rule["alert"]
        metrics = set(re.findall(r"\b((?:django|truthlens)_[a-z0-9_]+|up)\b", expr))
        assert metrics <= KNOWN_METRICS, (rule["alert"], metrics - KNOWN_METRICS)


@pytest.mark.parametrize(
    "metric",
    [
        "django_http_responses_total_by_status_total",  # API 5xx rate
        "django_http_requests_latency_seconds_by_view_method",  # p95 latency
        "truthlens_queue_depth",  # queue growth
        "truthlens_jobs_failed_total",  # failed jobs
        "truthlens_webhook_attempts_total",  # webhook failures
        'up{job="truthlens-worker"}',  # worker down
    ],
)
def test_each_required_alert_exists(alert_rules, metric):
    assert any(metric in rule["expr"] for rule in alert_rules)


def test_every_alert_has_a_runbook_section(alert_rules):
    headings = {
        re.sub(r"[^a-z0-9 -]", "", h.strip().lower()).replace(" ", "-")
        for h in re.findall(r"^#{2,4} (.+)$", OPERATIONS.read_text(), flags=re.M)
    }
    for rule in alert_rules:
        anchor = rule["annotations"]["runbook"].split("#", 1)[1]
        assert anchor == rule["alert"].lower()
        assert anchor in headings, f"docs/operations.md lacks a '### {rule['alert']}' runbook"


def test_chart_alerts_are_the_compose_alerts():
    chart_copy = (CHART / "files" / "alerts.yml").read_text()
    assert chart_copy == (DEPLOY / "prometheus" / "alerts.yml").read_text(), (
        "cp deploy/prometheus/alerts.yml deploy/helm/truthlens/files/alerts.yml"
    )


def test_scrape_config_targets_the_metrics_ports():
    config = load_yaml(DEPLOY / "prometheus" / "prometheus.yml")
    assert "/etc/prometheus/alerts.yml" in config["rule_files"]
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    web_targets = [t for sc in jobs["truthlens-web"]["static_configs"] for t in sc["targets"]]
    assert web_targets == ["web:9100"], "gunicorn serves /metrics only on GUNICORN_METRICS_BIND"
    worker_targets = {
        t.split(":")[0] for sc in jobs["truthlens-worker"]["static_configs"] for t in sc["targets"]
    }
    assert worker_targets == {
        "detect-worker",
        "mitigate-worker",
        "maintenance-worker",
        "index-worker",
    }


# --- Grafana --------------------------------------------------------------------------------


def test_grafana_dashboard_covers_the_metrics():
    dashboard = json.loads((DEPLOY / "grafana" / "truthlens.json").read_text())
    panels = [p for p in dashboard["panels"] if p.get("type") != "row"]
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids)), "panel ids must be unique"
    exprs = " ".join(t["expr"] for p in panels for t in p.get("targets", []))
    for metric in (
        "django_http_requests_total_by_method_total",
        "django_http_requests_latency_seconds_by_view_method_bucket",
        "truthlens_detections_total",
        "truthlens_score_bucket",
        "truthlens_latency_seconds_bucket",
        "truthlens_iterations",
        "truthlens_webhook_attempts_total",
        "truthlens_jobs_failed_total",
        "truthlens_queue_depth",
        "truthlens_worker_tasks_total",
    ):
        assert metric in exprs, metric
    used = set(re.findall(r"\b((?:django|truthlens)_[a-z0-9_]+)\b", exprs))
    assert used <= KNOWN_METRICS, used - KNOWN_METRICS
    for panel in panels:
        assert panel["title"]
        assert panel["targets"]
        assert panel["gridPos"]["w"] > 0


# --- hygiene ---------------------------------------------------------------------------------


def test_no_registry_or_cdn_host_is_named_in_deploy_files():
    paths = [p for p in DEPLOY.rglob("*") if p.is_file()] + [ROOT / ".dockerignore", OPERATIONS]
    offenders = [
        str(p.relative_to(ROOT))
        for p in paths
        if p.suffix not in {".pyc", ".whl"} and FORBIDDEN_HOSTS.search(p.read_text(errors="ignore"))
    ]
    assert not offenders


def _dashboard_exprs():
    dashboard = json.loads((DEPLOY / "grafana" / "truthlens.json").read_text())
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            # Grafana variables become what Grafana would put there.
            expr = target["expr"].replace("$__rate_interval", "5m")
            yield panel["title"], re.sub(r"\$(decision|mode)\b", ".*", expr)


def test_every_promql_expression_parses(alert_rules):
    promql = pytest.importorskip(
        "promql_parser", reason="promql-parser not installed (pip install promql-parser)"
    )
    exprs = [(r["alert"], r["expr"]) for r in alert_rules] + list(_dashboard_exprs())
    for where, expr in exprs:
        try:
            promql.parse(expr)
        except ValueError as exc:
            pytest.fail(f"{where}: {exc}\n{expr}")
