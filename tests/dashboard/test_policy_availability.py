"""The policy editor offers and accepts only what the tenant can run: its providers' models,
and a mode that needs an LLM only when it has one."""

from __future__ import annotations

import pytest
from django.urls import reverse

from engine.policy_checks import Available, check_policy
from tenants.models import Policy

from .test_policy_editor import editor_post

pytestmark = pytest.mark.django_db

SERVED = Available(models=frozenset({"openai/primary", "anthropic/claude-x"}), llm=True)
NO_LLM = Available(models=frozenset(), llm=False)


def _messages(problems) -> str:
    return " ".join(p.message for p in problems)


def test_models_must_be_served_by_a_provider_even_one_litellm_knows():
    doc = {"premium": {"verification_models": ["openai/primary", "openai/made-up-9"]}}
    _, problems = check_policy(doc, SERVED)
    assert [p.loc for p in problems] == [("premium", "verification_models", 1)]
    assert "not served by any of your LLM providers" in problems[0].message
    # a model litellm's price map knows is refused too: nothing could call it
    known = {"premium": {"verification_models": ["anthropic/claude-x"], "judge_model": "gpt-4o"}}
    assert [p.loc for p in check_policy(known, SERVED)[1]] == [("premium", "judge_model")]
    ok = {
        "premium": {"verification_models": ["anthropic/claude-x"], "judge_model": "openai/primary"}
    }
    assert check_policy(ok, SERVED)[1] == []


def test_a_mode_that_needs_an_llm_cannot_be_the_default_without_one():
    _, problems = check_policy({"default_mode": "premium"}, NO_LLM)
    # both reasons at once: no LLM, and no verification model to cross-check with
    assert [p.loc for p in problems] == [("premium", "verification_models"), ("default_mode",)]
    assert "needs an LLM" in _messages(problems)
    # allowing it is harmless (requests for it get a 400); standard has its no-LLM repair
    assert check_policy({"allowed_modes": ["lightweight", "premium"]}, NO_LLM)[1] == []
    assert check_policy({"default_mode": "standard"}, NO_LLM)[1] == []
    # and without `available` (reading a stored policy) nothing of this is checked
    stored = {"default_mode": "premium", "premium": {"verification_models": ["openai/x"]}}
    assert check_policy(stored)[1] == []


def test_the_editor_refuses_premium_as_default_for_a_tenant_without_llm(client, owner_a, tenant_a):
    client.force_login(owner_a)
    response = client.post(reverse("dashboard:policy"), editor_post(client, default_mode="premium"))
    assert response.status_code == 400
    assert "needs an LLM" in response.content.decode()
    assert not Policy.objects.filter(tenant=tenant_a.tenant).exists()


@pytest.mark.usefixtures("providers_a")
def test_the_editor_offers_the_served_models_and_refuses_others(client, owner_a, tenant_a):
    client.force_login(owner_a)
    page = client.get(reverse("dashboard:policy")).content.decode()
    assert '<option value="anthropic/claude-3-5-haiku">' in page
    refused = client.post(
        reverse("dashboard:policy"), editor_post(client, premium_judge_model="openai/gpt-nine")
    )
    assert refused.status_code == 400
    assert "not served by any of your LLM providers" in refused.content.decode()
    saved = client.post(
        reverse("dashboard:policy"),
        editor_post(
            client,
            premium_judge_model="openai/gpt-4o",
            premium_verification_models="anthropic/claude-3-5-haiku",
            default_mode="premium",
        ),
    )
    assert saved.status_code == 302
    stored = Policy.objects.get(tenant=tenant_a.tenant).document
    assert stored["premium"]["judge_model"] == "openai/gpt-4o"
