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
