"""A tenant's LLMSettings become the engine's client: prices and the retry budget."""

from dataclasses import replace

import pytest

from tests.fixtures.fake_llm import Reply
from tests.fixtures.llm import FAKE_PRICE, configure_llm
from verification.engine.mitigation import LLMError
from verification.tenant_config import client_for, model_config


@pytest.mark.django_db
@pytest.mark.parametrize(("max_retries", "requests"), [(0, 1), (2, 3)])
def test_the_tenant_max_retries_bounds_the_upstream_attempts(
    tenant_a, fake_llm, max_retries, requests
):
    llm = configure_llm(tenant_a.tenant, fake_llm)
    llm.max_retries = max_retries
    llm.save()
    fake_llm.script(*[Reply(status=503)] * 4, "never reached")
    client = client_for(llm)
    client.retry = replace(client.retry, initial_s=0.01, max_s=0.02)  # keep the test fast
    with pytest.raises(LLMError) as err:
        client.complete(
            model_config(llm, "openai/primary"), [{"role": "user", "content": "hi"}], role="refine"
        )
    assert err.value.call.attempts == requests
    assert len(fake_llm.requests) == requests


@pytest.mark.django_db
def test_the_tenant_price_table_prices_its_calls(tenant_a, fake_llm):
    llm = configure_llm(tenant_a.tenant, fake_llm)
    fake_llm.script("hello")
    reply = client_for(llm).complete(
        model_config(llm, "openai/primary"), [{"role": "user", "content": "hi"}], role="refine"
    )
    expected = (20 * FAKE_PRICE["input"] + 10 * FAKE_PRICE["output"]) / 1e6
    assert reply.call.cost_usd == pytest.approx(expected)
