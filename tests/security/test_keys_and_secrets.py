"""API keys are hashed and compared in constant time; stored secrets are encrypted at rest."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from django.db import connection

from tenants import keys
from tenants.llm_providers import LLMProvider
from tenants.models import ApiKey, WebhookEndpoint
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def compare_spy(monkeypatch) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    real = hmac.compare_digest

    def spy(a, b):
        seen.append((a, b))
        return real(a, b)

    monkeypatch.setattr(keys.hmac, "compare_digest", spy)
    return seen


def test_authentication_compares_the_hashed_secret_in_constant_time(tenant_a, compare_spy):
    # given a valid key
    token = tenant_a.token
    secret = token.split("_", 2)[2]
    # when it is used
    response = client_for(token).get("/v1/verifications")
    # then the digest of the presented secret went through hmac.compare_digest
    assert response.status_code == 200
    digest = hashlib.sha256(secret.encode()).hexdigest()
    assert (digest, ApiKey.objects.get().secret_hash) in compare_spy


def test_an_unknown_prefix_still_costs_one_constant_time_comparison(tenant_a, compare_spy):
    # a dummy hash is compared, so timing does not reveal which prefixes exist
    response = client_for("tl_zzzzzzzz_" + "x" * 43).get("/v1/verifications")
    assert response.status_code == 401
    assert len(compare_spy) == 1


def test_the_key_table_holds_no_usable_secret(tenant_a):
    token = tenant_a.token
    prefix, secret = keys.parse_key(token)
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM tenants_apikey")
        raw = " ".join(str(v) for row in cursor.fetchall() for v in row)
    assert secret not in raw
    assert token not in raw
    assert hashlib.sha256(secret.encode()).hexdigest() in raw


def _raw(table: str, column: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {column} FROM {table}")  # fixed names
        return str(cursor.fetchone()[0])


def test_webhook_and_provider_secrets_are_encrypted_at_rest(tenant_a, client_a):
    # given secrets stored through the API and the models
    tenant = tenant_a.tenant
    created = client_a.post(
        "/v1/webhook-endpoints", {"url": "http://127.0.0.1:9/h"}, format="json"
    ).json()
    llm = LLMProvider(tenant=tenant, name="p", model_prefix="openai/", model_names=["x"])
    llm.api_key = "sk-live-very-secret-provider-key"
    llm.save()
    # then the raw columns hold Fernet tokens, never the plaintext, and decrypt back
    raw_endpoint = _raw("tenants_webhookendpoint", "secret_encrypted")
    raw_tenant = _raw("tenants_tenant", "webhook_secret_encrypted")
    raw_llm = _raw("tenants_llmprovider", "api_key_encrypted")
    assert created["secret"] not in raw_endpoint
    assert raw_endpoint.startswith("gAAAA")
    assert tenant.webhook_secret not in raw_tenant
    assert raw_tenant.startswith("gAAAA")
    assert "sk-live" not in raw_llm
    assert raw_llm.startswith("gAAAA")
    assert WebhookEndpoint.objects.get().secret == created["secret"]
    assert LLMProvider.objects.get().api_key == "sk-live-very-secret-provider-key"
    # and the secret is never shown again after creation
    listed = client_a.get(f"/v1/webhook-endpoints/{created['id']}").json()
    assert "secret" not in listed


def test_generated_keys_parse_and_match_only_their_hash():
    key = keys.generate_key()
    prefix, secret = keys.parse_key(key.token)
    assert prefix == key.prefix
    assert secret == key.secret
    assert keys.secret_matches(secret, key.secret_hash)
    assert not keys.secret_matches(secret + "x", key.secret_hash)
    assert keys.parse_key("tl_short_x") is None
