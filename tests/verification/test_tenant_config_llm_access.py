"""A tenant's providers become the engine's client: prices, each provider's retries within
its timeout, and nothing but the providers' own credentials."""

import time
from dataclasses import replace

import pytest

from engine import LLMError
from tests.fixtures.fake_llm import Reply
from tests.fixtures.llm import FAKE_PRICE, configure_llm
from verification.tenant_config import client_for, model_config

pytestmark = pytest.mark.django_db
HI = [{"role": "user", "content": "hi"}]


def _fast(client):
    client.retry = replace(client.retry, initial_s=0.01, max_s=0.02)  # keep the test fast
    return client


@pytest.mark.parametrize("status", [429, 500])
@pytest.mark.parametrize(("max_retries", "requests"), [(0, 1), (2, 3)])
def test_the_providers_max_retries_bounds_the_upstream_calls(
    tenant_a, fake_llm, max_retries, requests, status
):
    # given a provider allowing `max_retries` retries, and an upstream that keeps failing
    configure_llm(tenant_a.tenant, fake_llm, max_retries=max_retries)
    fake_llm.script(*[Reply(status=status)] * 5, "never reached")
    # when one call is made
    with pytest.raises(LLMError) as err:
        _fast(client_for(tenant_a.tenant.pk)).complete(
            model_config(tenant_a.tenant.pk, "openai/primary"), HI, role="refine"
        )
    # then the upstream saw the first attempt and exactly that many retries, no more
    assert err.value.call.attempts == requests
    assert len(fake_llm.requests) == requests


def test_each_call_follows_the_retries_of_the_provider_serving_its_model(tenant_a, fake_llm):
    # given two providers: one never retries, the other retries twice
    from tenants.llm_providers import LLMProvider

    configure_llm(tenant_a.tenant, fake_llm, max_retries=0)
    LLMProvider.objects.create(
        tenant=tenant_a.tenant,
        name="Patient",
        model_prefix="hosted/",
        model_names=["big"],
        api_base=fake_llm.api_base,
        max_retries=2,
    )
    fake_llm.script(*[Reply(status=503)] * 5)
    client = _fast(client_for(tenant_a.tenant.pk))
    with pytest.raises(LLMError):
        client.complete(model_config(tenant_a.tenant.pk, "openai/primary"), HI, role="refine")
    assert len(fake_llm.requests) == 1


def test_the_timeout_is_one_deadline_for_all_attempts(tenant_a, fake_llm):
    # given a provider with a 1.5 s timeout and many retries, and an upstream that asks to
    # wait 5 s after each 429
    configure_llm(tenant_a.tenant, fake_llm, max_retries=10, timeout_seconds=1.5)
    fake_llm.script(*[Reply(status=429, headers={"Retry-After": "5"})] * 11)
    started = time.monotonic()
    with pytest.raises(LLMError):
        client_for(tenant_a.tenant.pk).complete(
            model_config(tenant_a.tenant.pk, "openai/primary"), HI, role="refine"
        )
    # then no retry was started that could not finish within the deadline
    assert time.monotonic() - started < 1.5
    assert len(fake_llm.requests) == 1


def test_a_slow_upstream_is_cut_at_the_deadline_retries_included(tenant_a, fake_llm):
    configure_llm(tenant_a.tenant, fake_llm, max_retries=3, timeout_seconds=1)
    fake_llm.script(*[Reply(delay=0.7, status=500)] * 4)
    started = time.monotonic()
    with pytest.raises(LLMError):
        _fast(client_for(tenant_a.tenant.pk)).complete(
            model_config(tenant_a.tenant.pk, "openai/primary"), HI, role="refine"
        )
    assert time.monotonic() - started < 1.6
    assert len(fake_llm.requests) == 2  # the second attempt got the 0.3 s that were left


def test_a_model_no_provider_serves_is_never_called(tenant_a, fake_llm, monkeypatch):
    # given a deployment whose environment holds a provider key, and a tenant provider
    monkeypatch.setenv("OPENAI_API_KEY", "sk-operator-secret")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.api_base)
    configure_llm(tenant_a.tenant, fake_llm)
    # when a model none of its providers serves is called
    config = model_config(tenant_a.tenant.pk, "openai/does-not-exist")
    with pytest.raises(LLMError) as err:
        client_for(tenant_a.tenant.pk).complete(config, HI, role="refine")
    # then it fails at once, and nothing reached any upstream with the operator's key
    assert "not served by any of this tenant's LLM providers" in str(err.value)
    assert fake_llm.requests == []


def test_a_provider_without_a_key_never_sends_the_environments(tenant_a, fake_llm, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-operator-secret")
    provider = configure_llm(tenant_a.tenant, fake_llm)
    provider.api_key = ""
    provider.save()
    seen = []

    def responder(body):
        return Reply(content="ok")

    fake_llm.responder = responder
    import http.server

    original = http.server.BaseHTTPRequestHandler.parse_request

    def keep_headers(self):
        ok = original(self)
        seen.append(self.headers.get("Authorization", ""))
        return ok

    monkeypatch.setattr(http.server.BaseHTTPRequestHandler, "parse_request", keep_headers)
    client_for(tenant_a.tenant.pk).complete(
        model_config(tenant_a.tenant.pk, "openai/primary"), HI, role="refine"
    )
    assert seen
    assert all("sk-operator-secret" not in h for h in seen)


def test_the_tenant_price_table_prices_its_calls(tenant_a, fake_llm):
    configure_llm(tenant_a.tenant, fake_llm)
    fake_llm.script("hello")
    reply = client_for(tenant_a.tenant.pk).complete(
        model_config(tenant_a.tenant.pk, "openai/primary"), HI, role="refine"
    )
    expected = (20 * FAKE_PRICE["input"] + 10 * FAKE_PRICE["output"]) / 1e6
    assert reply.call.cost_usd == pytest.approx(expected)
