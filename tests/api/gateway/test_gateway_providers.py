"""The gateway calls only the tenant's providers, as each provider says, and no longer
than the request lasts: the official `openai` client against a local fake upstream."""

from __future__ import annotations

import time

import openai
import pytest

from tests.fixtures.fake_llm import Reply
from tests.fixtures.llm import configure_llm

QUESTION = [{"role": "user", "content": "When was the Eiffel Tower built?"}]
pytestmark = [
    pytest.mark.usefixtures("short_lived_connections"),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def gateway(live_server, tenant_a, fake_llm, monkeypatch):
    """(an `openai` client on the gateway with the SDK's default retries, the fake upstream,
    the tenant); the deployment's environment holds an OpenAI key and base, as a server
    set up for other purposes might."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-operator-secret")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.api_base)
    tenant, token = tenant_a
    configure_llm(tenant, fake_llm)
    client = openai.OpenAI(base_url=f"{live_server.url}/v1", api_key=token)
    return client, fake_llm, tenant


def test_an_unknown_model_is_an_immediate_openai_404(gateway):
    client, fake, _ = gateway
    with pytest.raises(openai.NotFoundError):  # the first request warms the server up
        client.chat.completions.create(model="openai/does-not-exist", messages=QUESTION)
    started = time.monotonic()
    with pytest.raises(openai.NotFoundError) as caught:
        client.chat.completions.create(model="openai/does-not-exist", messages=QUESTION)
    assert time.monotonic() - started < 1  # no upstream call, no SDK retry of a 404
    assert caught.value.status_code == 404
    assert caught.value.code == "model_not_found"
    assert "openai/does-not-exist" in caught.value.message
    assert fake.requests == []  # the operator's environment key was never used


def test_a_provider_with_no_retries_gets_one_upstream_call(gateway):
    client, fake, tenant = gateway
    tenant.llm_providers.update(max_retries=0)
    fake.script(*[Reply(status=500)] * 8)
    with pytest.raises(openai.InternalServerError):
        client.with_options(max_retries=0).chat.completions.create(
            model="openai/primary", messages=QUESTION
        )
    assert len(fake.requests) == 1


def test_a_429_reaches_the_client_within_the_providers_timeout(gateway):
    # given a provider with a 2 s timeout and 3 retries, and an upstream asking for 30 s
    client, fake, tenant = gateway
    tenant.llm_providers.update(max_retries=3, timeout_seconds=2)
    fake.script(*[Reply(status=429, headers={"Retry-After": "30"})] * 12)
    started = time.monotonic()
    with pytest.raises(openai.RateLimitError):
        client.with_options(max_retries=0).chat.completions.create(
            model="openai/primary", messages=QUESTION
        )
    # then the client hears it at once: no wait that cannot end within the deadline
    assert time.monotonic() - started < 2
    assert len(fake.requests) == 1


def test_an_upstream_error_is_said_in_plain_words(gateway):
    client, fake, tenant = gateway
    tenant.llm_providers.update(max_retries=0)
    fake.script(Reply(status=500))
    with pytest.raises(openai.InternalServerError) as caught:
        client.with_options(max_retries=0).chat.completions.create(
            model="openai/primary", messages=QUESTION
        )
    message = caught.value.message
    assert "The provider failed with an error of its own (500)" in message
    assert "litellm." not in message
    assert "OpenAIException" not in message


def test_a_client_that_leaves_a_stream_stops_the_upstream(gateway):
    # given an upstream that streams 300 words slowly
    client, fake, _ = gateway
    words = " ".join(f"word{i}" for i in range(300))
    fake.script(Reply(content=words, token_delay=0.02))
    # when the client reads a few chunks and closes the stream
    stream = client.chat.completions.create(model="openai/primary", messages=QUESTION, stream=True)
    for i, _ in enumerate(stream):
        if i == 3:
            break
    stream.close()
    # then the upstream stream is closed too, long before its last word
    deadline = time.monotonic() + 5
    while fake.streams_aborted == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert fake.streams_aborted == 1
    assert fake.streams_finished == 0


def test_the_sdks_own_retries_do_not_multiply_the_upstream_calls(gateway):
    # given a provider allowing one retry, and the SDK with its default 2 retries
    client, fake, tenant = gateway
    tenant.llm_providers.update(max_retries=1)
    fake.script(*[Reply(status=429, headers={"Retry-After": "0"})] * 12)
    with pytest.raises(openai.RateLimitError) as caught:
        client.chat.completions.create(model="openai/primary", messages=QUESTION)
    # then the upstream saw the provider's 2 attempts, not 2 for each of the SDK's 3 tries
    assert len(fake.requests) == 2
    assert caught.value.response.headers["x-should-retry"] == "false"
