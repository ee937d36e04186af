import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def test_healthz_is_always_ok():
    assert APIClient().get("/healthz").json() == {"status": "ok"}


def test_readyz_checks_postgres_and_redis():
    body = APIClient().get("/readyz").json()
    assert body["checks"] == {"postgres": "ok", "redis": "ok"}


def test_readyz_is_503_when_redis_is_unreachable(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    response = APIClient().get("/readyz")
    assert response.status_code == 503
    assert response["Retry-After"]
    assert response.json()["checks"]["redis"].startswith("error")


def test_metrics_are_exposed():
    response = APIClient().get("/metrics")
    assert response.status_code == 200
    assert b"django_http_requests" in response.content


def test_openapi_schema_and_docs_are_served():
    schema = APIClient().get("/v1/schema", HTTP_ACCEPT="application/json")
    assert schema.status_code == 200
    assert "/v1/verifications" in schema.json()["paths"]
    docs = APIClient().get("/v1/docs")
    assert docs.status_code == 200
    assert b"swagger" in docs.content.lower()


def test_unknown_urls_are_problem_json_404():
    response = APIClient().get("/v1/nope")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"


def test_webhook_endpoints_show_the_secret_once_and_refuse_internal_urls(client_a, client_b):
    refused = client_a.post("/v1/webhook-endpoints", {"url": "http://10.0.0.5/hook"}, format="json")
    assert refused.status_code == 400
    created = client_a.post(
        "/v1/webhook-endpoints", {"url": "http://127.0.0.1:9/hook"}, format="json"
    )
    assert created.status_code == 201
    assert created.json()["secret"].startswith("whsec_")
    endpoint_id = created.json()["id"]
    listed = client_a.get("/v1/webhook-endpoints").json()
    assert listed[0]["id"] == endpoint_id
    assert "secret" not in listed[0]
    assert client_b.get(f"/v1/webhook-endpoints/{endpoint_id}").status_code == 404
    assert client_b.delete(f"/v1/webhook-endpoints/{endpoint_id}").status_code == 404
    rotated = client_a.post(f"/v1/webhook-endpoints/{endpoint_id}/rotate-secret")
    assert rotated.json()["secret"] != created.json()["secret"]
