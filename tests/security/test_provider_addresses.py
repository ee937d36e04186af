"""LLM provider addresses: an operator allow-list of their own, and a check at every
connection, so DNS rebinding cannot turn a public name into an internal address
(web search: `tests/knowledge/test_search_addresses.py`)."""

from __future__ import annotations

import socket

import pytest

from engine import LLMError
from security import urlguard
from tests.fixtures.llm import configure_llm
from verification.tenant_config import client_for, model_config

pytestmark = pytest.mark.django_db
PUBLIC = "93.184.216.34"


@pytest.fixture
def llm_hosts(settings):
    """Set the operator's LLM allow-list (the webhook one keeps allowing 127.0.0.1)."""

    def set_(hosts: list[str]) -> None:
        settings.TRUTHLENS = {**settings.TRUTHLENS, "LLM_ALLOWED_HOSTS": hosts}

    return set_


class Rebinding:
    """getaddrinfo for `rebind.example`: the scripted answers in turn (the last one
    repeats); every other name resolves as usual (Redis, the live server)."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.calls = 0
        self.real = socket.getaddrinfo

    def __call__(self, host, port, *args, **kwargs):
        if host != "rebind.example":
            return self.real(host, port, *args, **kwargs)
        address = self.answers[min(self.calls, len(self.answers) - 1)]
        self.calls += 1
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]


def _provider_body(api_base: str) -> dict:
    return {
        "name": "Local vLLM",
        "model_prefix": "openai/",
        "model_names": ["primary"],
        "api_base": api_base,
        "max_retries": 2,
    }


def test_a_private_api_base_is_refused_naming_the_operator_allow_list(
    client_a, fake_llm, llm_hosts
):
    # given an operator who allowed 127.0.0.1 for webhooks only
    llm_hosts([])
    # when a tenant adds a provider on 127.0.0.1
    response = client_a.post("/v1/llm-providers", _provider_body(fake_llm.api_base), "json")
    # then it is refused, and the message names the setting that would allow it
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["field"] == "api_base"
    assert "non-public address" in error["message"]
    assert "TRUTHLENS_LLM_ALLOWED_HOSTS" in error["message"]


def test_the_operator_allow_list_lets_a_model_served_next_to_truthlens_in(
    client_a, fake_llm, llm_hosts
):
    llm_hosts(["127.0.0.0/8"])
    created = client_a.post("/v1/llm-providers", _provider_body(fake_llm.api_base), "json")
    assert created.status_code == 201, created.json()
    fake_llm.script("ready")
    tested = client_a.post(f"/v1/llm-providers/{created.json()['id']}/test", {}, "json").json()
    assert tested["ok"] is True


def test_test_connection_checks_the_address_again_when_it_runs(
    client_a, fake_llm, llm_hosts, monkeypatch
):
    # given a provider whose name resolved to a public address when it was saved
    llm_hosts([])
    port = fake_llm.api_base.rsplit(":", 1)[1].split("/")[0]
    resolver = Rebinding(PUBLIC, "127.0.0.1")
    monkeypatch.setattr(urlguard.socket, "getaddrinfo", resolver)
    api_base = f"http://rebind.example:{port}/v1"
    created = client_a.post("/v1/llm-providers", _provider_body(api_base), "json")
    assert created.status_code == 201, created.json()
    # when the name now resolves to the loopback address and the tenant tests it
    tested = client_a.post(f"/v1/llm-providers/{created.json()['id']}/test", {}, "json").json()
    # then nothing was sent, and the tenant reads why
    assert tested["ok"] is False
    assert "non-public address" in tested["error"]
    assert "TRUTHLENS_LLM_ALLOWED_HOSTS" in tested["error"]
    assert fake_llm.requests == []


def test_every_llm_connection_goes_to_the_address_it_checked(
    tenant_a, fake_llm, llm_hosts, monkeypatch
):
    # given a provider on a public name (as saved), used by a job's call
    llm_hosts([])
    port = fake_llm.api_base.rsplit(":", 1)[1].split("/")[0]
    configure_llm(tenant_a.tenant, fake_llm, max_retries=3)
    tenant_a.tenant.llm_providers.update(api_base=f"http://rebind.example:{port}/v1")
    # when the name resolves to an internal address at the moment of the connection
    monkeypatch.setattr(urlguard.socket, "getaddrinfo", Rebinding("127.0.0.1"))
    with pytest.raises(LLMError) as err:
        client_for(tenant_a.tenant.pk).complete(
            model_config(tenant_a.tenant.pk, "openai/primary"),
            [{"role": "user", "content": "hi"}],
            role="refine",
        )
    # then the connection is refused, once (a refusal is not retried), and nothing is sent
    assert err.value.call.attempts == 1
    assert fake_llm.requests == []


@pytest.mark.parametrize(
    "prefix", ["openai/", "anthropic/", "hosted_vllm/", "ollama_chat/", "mistral/", "cohere_chat/"]
)
def test_every_provider_family_connects_through_the_guard(tenant_a, fake_llm, llm_hosts, prefix):
    # given a provider whose stored API base is the loopback address (saved before the
    # operator narrowed the allow-list), in any of litellm's provider families
    from engine.mitigation.llm import is_refused
    from tenants.llm_providers import LLMProvider

    llm_hosts([])
    LLMProvider.objects.create(
        tenant=tenant_a.tenant,
        name="p",
        model_prefix=prefix,
        model_names=["m"],
        api_base=fake_llm.api_base,
        max_retries=2,
    )
    # when a call is made, then litellm's HTTP client refuses to connect, once
    with pytest.raises(LLMError) as err:
        client_for(tenant_a.tenant.pk).complete(
            model_config(tenant_a.tenant.pk, prefix + "m"),
            [{"role": "user", "content": "hi"}],
            role="refine",
        )
    assert is_refused(err.value)
    assert err.value.call.attempts == 1
    assert fake_llm.requests == []
