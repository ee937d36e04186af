"""Property-based fuzzing of every operation in the OpenAPI schema (schemathesis), with a valid key.

Bounded and reproducible: at most 25 generated examples per operation, derandomized
(a fixed seed), no shrinking phase. Checks: no 5xx, and every documented response
matches its schema.
"""

from __future__ import annotations

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
    monkeypatch.setattr("api.views.verifications.wait_for", lambda *args, **kwargs: False)
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
