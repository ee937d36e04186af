"""Property-based fuzzing of every operation in the OpenAPI schema (schemathesis), with a valid key.

In process (`from_wsgi`): at most 25 generated examples per operation, derandomized,
no shrinking; no 5xx and every documented response matches its schema.

Over HTTP against a live gunicorn with a worker (`test_schemathesis_cli_...`): the CLI
with every check on (status-code, content-type and header conformance, negative data
rejection, positive data acceptance, ...), positive and negative data, the examples,
coverage, fuzzing and stateful phases; bounded (5 examples per operation, one worker
thread, a request rate cap, a fixed seed) to about a minute on two cores.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from config.wsgi import application
from tenants.models import Plan

schema = schemathesis.openapi.from_wsgi("/v1/schema?format=json", application)

pytestmark = pytest.mark.django_db


@pytest.fixture
def auth(tenant_a, monkeypatch) -> dict[str, str]:
    # a generous rate so the fuzzer measures the API, not the throttle
    tenant = tenant_a.tenant
    tenant.plan = Plan.objects.create(name="fuzz", rate_limit="100000/min")
    tenant.save()
    # `"wait": N` would block each example up to 30 s on a job no worker takes here;
    # waiting itself is covered by tests/workers and tests/faults.
    monkeypatch.setattr("verification.job_details.wait_for", lambda *args, **kwargs: False)
    return {"Authorization": f"Bearer {tenant_a.token}"}


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    # Calling the WSGI app directly fires request_started/finished, whose handler would
    # close the connection that holds this test's transaction (Django's test client
    # disconnects it the same way).
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def test_the_schema_documents_every_operation_with_the_key_scheme():
    raw = schema.raw_schema
    assert raw["components"]["securitySchemes"]["ApiKey"]["scheme"] == "bearer"
    paths = set(raw["paths"])
    assert {
        "/v1/verifications",
        "/v1/verifications/{public_id}",
        "/v1/verifications/{public_id}/feedback",
        "/v1/usage",
        "/v1/webhook-endpoints",
        "/v1/webhook-endpoints/{id}",
        "/v1/webhook-endpoints/{id}/rotate-secret",
        "/v1/chat/completions",
    } <= paths


@schema.parametrize()
@settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_no_operation_answers_5xx_or_breaks_its_schema(case, auth):
    response = case.call(headers=auth)
    case.validate_response(response, checks=[not_a_server_error, response_schema_conformance])


# Schema-valid requests that a business rule refuses, each with a 400 naming the field:
# what the schema cannot say. Every other check must report nothing.
REFUSED_BY_BUSINESS_RULES = {
    # callback/webhook/provider URLs must resolve to a public address (no network in CI)
    "POST /v1/verifications",  # also: `response` or `messages` is required
    "POST /v1/webhook-endpoints",
    "POST /v1/llm-providers",  # also: the model prefix must be a litellm provider
    "PUT /v1/web-search",
    # a model must be served by one of the tenant's providers (it has none here)
    "PUT /v1/llm-roles",
    "POST /v1/chat/completions",
    "POST /v1/messages",
    # a name of only control characters is blank once trimmed
    "POST /v1/knowledge-bases",
    # a cursor is only one the API handed out (`next`, `previous`)
    "GET /v1/verifications",
    # an upload's rows are validated one by one (JSONL or CSV with a context, an answer and
    # a label each): random file bytes are refused with the rows' errors
    "POST /v1/datasets",
}


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_schemathesis_cli_over_http_finds_no_server_error_and_no_undocumented_status(
    gunicorn, start_worker, tenant_a, tmp_path
):
    # given a live server and a worker (a `wait` ends when the job does), a generous plan
    tenant = tenant_a.tenant
    tenant.plan = Plan.objects.create(name="fuzz", rate_limit="100000/min")
    tenant.save()
    start_worker(queues="detect,mitigate", beat=False)
    # the fuzzer's keyless requests must not lock its own address out (the guessing
    # throttle has its own tests: tests/security/test_guessing.py)
    base = gunicorn(TRUTHLENS_GATEWAY_WAIT_SECONDS="0", TRUTHLENS_BAD_KEY_LIMIT="1000000")
    report = tmp_path / "report.json"
    # when
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "schemathesis.cli",
            "run",
            f"{base}/v1/schema?format=json",
            "--checks",
            "all",
            "--mode",
            "all",
            "--phases",
            "examples,coverage,fuzzing,stateful",
            "-H",
            f"Authorization: Bearer {tenant_a.token}",
            "--max-examples",
            "5",
            "--seed",
            "22",
            "--no-shrink",
            "--workers",
            "1",
            "--rate-limit",
            "60/s",
            "--request-timeout",
            "20",
            "--generation-database",
            "none",
            "--no-color",
            "--report",
            "json",
            "--report-json-path",
            str(report),
        ],  # fmt: skip
        cwd=tmp_path,  # its crash cache (.schemathesis/) stays out of the repository
        capture_output=True,
        text=True,
        timeout=400,
    )
    # then
    summary = json.loads(report.read_text())
    output = run.stdout[-6000:]
    assert summary["complete"], output
    assert summary["operations"]["tested"] == summary["operations"]["total"] == 48, output
    assert summary["errors"] == [], output
    unexpected = [
        failure
        for failure in summary["failures"]
        if failure["code"] != "ST202" or set(failure["operations"]) - REFUSED_BY_BUSINESS_RULES
    ]
    assert unexpected == [], json.dumps(unexpected)[:4000]
    print(output[-1500:])  # the summary, for the CI log
