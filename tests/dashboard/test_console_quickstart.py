"""The quickstart after a key is created: three tabs, filled with the key's prefix and the
public base URL, never with the secret (which is shown once, above them)."""

from __future__ import annotations

import ast
import shlex

import pytest
from django.urls import reverse

from dashboard import quickstart
from tenants.models import ApiKey

pytestmark = pytest.mark.django_db

BASE = "https://truthlens.example.test"


@pytest.fixture
def public_base(settings):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "PUBLIC_BASE_URL": BASE + "/"}


def _create(client) -> tuple[str, dict]:
    posted = client.post(reverse("dashboard:keys"), {"name": "first", "scope": "write"})
    assert posted.status_code == 303
    shown = client.get(posted["Location"])
    return shown.content.decode(), shown.context


def test_quickstart_tabs_carry_prefix_and_base_url_but_not_the_secret(
    client, owner_a, tenant_a, public_base
):
    client.force_login(owner_a)
    html, context = _create(client)
    token = context["token"]
    key = ApiKey.objects.get(tenant=tenant_a.tenant, name="first")
    tabs = {tab.slug: tab for tab in context["quickstart"]}
    assert [t.label for t in context["quickstart"]] == [
        "curl",
        "Python SDK",
        "OpenAI client (gateway)",
    ]
    for tab in tabs.values():
        assert f"tl_{key.prefix}_…" in tab.code
        assert token not in tab.code
        assert "TRUTHLENS_API_KEY" in tab.code
    assert f"curl -s {BASE}/v1/verifications" in tabs["curl"].code
    assert f'base_url="{BASE}"' in tabs["python"].code
    assert "from truthlens import TruthLens" in tabs["python"].code
    assert "client.verify(" in tabs["python"].code
    assert f'base_url="{BASE}/v1"' in tabs["openai"].code
    # the secret is on the page exactly once: in the one-time box, not in a snippet
    assert html.count(token) == 1
    assert 'role="tablist"' in html
    assert html.count('role="tabpanel"') == 3
    # a refresh keeps the quickstart (by prefix) but the secret is gone for good
    again = client.get(reverse("dashboard:keys"))
    assert again.context["token"] is None
    assert token not in again.content.decode()
    assert again.context["quickstart_prefix"] == key.prefix


def test_snippets_are_valid_python_and_shell(settings, public_base):
    tabs = {tab.slug: tab for tab in quickstart.tabs("abcd1234", "openai/gpt-4o-mini")}
    ast.parse(tabs["python"].code)
    ast.parse(tabs["openai"].code)
    assert "model='openai/gpt-4o-mini'" in tabs["openai"].code
    words = shlex.split(tabs["curl"].code, comments=True)
    assert words[:3] == ["curl", "-s", f"{BASE}/v1/verifications"]
    body = words[words.index("-d") + 1]
    assert '"response": "The Eiffel Tower was built from 1887 to 1889."' in body


def test_quickstart_names_the_newest_active_key_of_this_tenant_only(
    client, owner_a, tenant_a, tenant_b
):
    client.force_login(owner_a)
    own = ApiKey.objects.get(tenant=tenant_a.tenant)
    other = ApiKey.objects.get(tenant=tenant_b.tenant)
    html = client.get(reverse("dashboard:keys")).content.decode()
    assert f"tl_{own.prefix}_…" in html
    assert other.prefix not in html
    own.revoke()
    response = client.get(reverse("dashboard:keys"))
    assert response.context["quickstart"] == []  # no active key: nothing to start with
