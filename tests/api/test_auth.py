from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from tenants.models import ApiKey
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def test_it_rejects_a_request_without_key_as_problem_json():
    response = APIClient().get("/v1/verifications")
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["type"].endswith("/unauthenticated")
    assert response["WWW-Authenticate"] == "Bearer"


def test_unknown_prefix_and_wrong_secret_answer_identically(tenant_a):
    _, token = tenant_a
    prefix = token.split("_")[1]
    wrong_secret = client_for(f"tl_{prefix}_{'x' * 43}").get("/v1/verifications")
    unknown = client_for(f"tl_zzzzzzzz_{'x' * 43}").get("/v1/verifications")
    assert wrong_secret.status_code == unknown.status_code == 401
    assert wrong_secret.json() == unknown.json()


def test_it_rejects_a_malformed_authorization_header(tenant_a):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token abc")
    assert client.get("/v1/verifications").status_code == 401


def test_a_revoked_key_stops_working(tenant_a, client_a):
    tenant, _ = tenant_a
    assert client_a.get("/v1/verifications").status_code == 200
    ApiKey.objects.get(tenant=tenant).revoke()
    assert client_a.get("/v1/verifications").status_code == 401


def test_a_read_only_key_reads_but_cannot_create(tenant_a, eiffel):
    tenant, _ = tenant_a
    _, token = ApiKey.issue(tenant, name="ro", scope=ApiKey.SCOPE_READ)
    client = client_for(token)
    assert client.get("/v1/verifications").status_code == 200
    response = client.post("/v1/verifications", eiffel.request(), format="json")
    assert response.status_code == 403
    assert response.json()["status"] == 403


def test_the_key_stores_only_a_hash_of_its_secret(tenant_a):
    tenant, token = tenant_a
    key = ApiKey.objects.get(tenant=tenant)
    secret = token.split("_", 2)[2]
    assert secret not in key.secret_hash
    assert len(key.secret_hash) == 64
    assert token.startswith(f"tl_{key.prefix}_")


def test_last_used_is_written_at_most_once_a_minute(tenant_a, client_a, monkeypatch):
    from tenants import auth_cache

    tenant, _ = tenant_a
    auth_cache.invalidate()
    clock = [1000.0]  # the process's clock (its auth cache and its last touch), see below
    monkeypatch.setattr(auth_cache.time, "monotonic", lambda: clock[0])
    client_a.get("/v1/verifications")
    key = ApiKey.objects.get(tenant=tenant)
    first = key.last_used_at
    assert first is not None
    client_a.get("/v1/verifications")
    key.refresh_from_db()
    assert key.last_used_at == first
    ApiKey.objects.filter(pk=key.pk).update(last_used_at=timezone.now() - timedelta(minutes=2))
    clock[0] += 61  # a minute passes for this process too
    client_a.get("/v1/verifications")
    key.refresh_from_db()
    assert key.last_used_at > first
