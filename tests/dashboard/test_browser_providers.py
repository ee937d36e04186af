"""Browser test of the LLM provider page: add a provider, "Test connection" against the
local OpenAI-compatible server (its answer, then its refusal in plain words)."""

from __future__ import annotations

import pytest

from tenants.llm_providers import LLMProvider
from tests.fixtures.fake_llm import Reply

from . import test_browser

chromium, page, sign_in = test_browser.chromium, test_browser.page, test_browser.sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_admin_adds_a_provider_and_tests_its_connection(
    page, live_server, owner_a, tenant_a, fake_llm
):
    sign_in(page, live_server, "owner-a")
    page.get_by_role("link", name="LLM providers").click()
    page.get_by_label("Name").fill("Local server")
    page.get_by_label("litellm prefix").fill("openai/")
    page.get_by_label("Models").fill("primary\njudge")
    page.get_by_label("API base URL").fill(fake_llm.api_base)
    page.get_by_label("API key").fill("sk-browser-secret")
    page.get_by_role("button", name="Add provider").click()
    page.get_by_text("Provider Local server added.").wait_for()
    assert "sk-browser-secret" not in page.content()
    assert LLMProvider.objects.get(tenant=tenant_a.tenant).api_key == "sk-browser-secret"

    fake_llm.script("ready")
    page.get_by_role("button", name="Test connection").click()
    page.get_by_text("openai/primary answered “ready”").wait_for()

    fake_llm.script(Reply(status=401))
    page.get_by_role("button", name="Test connection").click()
    page.get_by_text("refused the API key").wait_for()
    # a refresh after the test repeats no call
    calls = len(fake_llm.requests)
    page.reload()
    assert len(fake_llm.requests) == calls


def test_every_served_model_can_be_tested_from_the_page(
    page, live_server, owner_a, tenant_a, fake_llm
):
    # given a provider serving two models
    from tenants.provider_actions import save_provider

    save_provider(
        tenant_a.tenant,
        {
            "name": "Local server",
            "model_prefix": "openai/",
            "model_names": ["primary", "judge"],
            "api_base": fake_llm.api_base,
            "api_key": "sk-x",
        },
    )
    sign_in(page, live_server, "owner-a")
    page.get_by_role("link", name="LLM providers").click()
    # when the admin picks the second model and tests it
    page.get_by_label("Model to test with Local server").select_option("openai/judge")
    fake_llm.script("ready")
    page.get_by_role("button", name="Test connection").click()
    # then that model was called, and the page says so
    page.get_by_text("openai/judge answered “ready”").wait_for()
    assert fake_llm.requests[-1]["model"] == "judge"
    # and an upstream failure reads as words, not as litellm's exception text
    page.get_by_label("Model to test with Local server").select_option("openai/judge")
    fake_llm.script(Reply(status=500))
    page.get_by_role("button", name="Test connection").click()
    message = page.get_by_text("The provider failed with an error of its own (500)")
    message.wait_for()
    assert "litellm" not in message.inner_text()
    assert "Exception" not in message.inner_text()
