"""Every dashboard page carries a strict Content-Security-Policy its markup obeys, a
Permissions-Policy, and (signed in) `Cache-Control: no-store`."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from .conftest import make_user
from .pages import fill, staff_owner

pytestmark = pytest.mark.django_db


def _directives(response) -> dict[str, list[str]]:
    policy = response["Content-Security-Policy"]
    return {d.split()[0]: d.split()[1:] for d in policy.split(";") if d.strip()}


@pytest.fixture
def every_page(client, tenant_a):
    user = staff_owner(tenant_a.tenant, make_user)
    urls = fill(tenant_a.tenant, user)
    client.force_login(user)
    return {name: client.get(url) for name, url in urls.items()}


def test_every_signed_in_page_has_the_policies_and_is_not_stored(every_page):
    for name, response in every_page.items():
        csp = _directives(response)
        assert csp["script-src"] == ["'self'"], name  # no inline script, no eval, no CDN
        assert csp["style-src"] == ["'self'"], name
        assert csp["object-src"] == ["'none'"], name
        assert csp["frame-ancestors"] == ["'none'"], name
        assert "camera=()" in response["Permissions-Policy"], name
        assert "no-store" in response["Cache-Control"], name


def test_no_page_needs_what_the_policy_forbids(every_page):
    # then no inline script (JSON data blocks are not run), no inline event handler,
    # no <style> element, no javascript: URL and no foreign origin
    for name, response in every_page.items():
        soup = BeautifulSoup(response.content, "html.parser")
        inline = [
            str(s)[:80]
            for s in soup.find_all("script")
            if not s.get("src") and s.get("type") != "application/json"
        ]
        handlers = [
            f"{tag.name}[{attr}]"
            for tag in soup.find_all(True)
            for attr in tag.attrs
            if attr.startswith("on")
        ]
        assert (inline, handlers, soup.find_all("style")) == ([], [], []), name
        tags = soup.find_all(["script", "link"])
        sources = [t.get("src") or t.get("href") for t in tags if t.get("src") or t.get("href")]
        assert all(s.startswith("/") for s in sources), (name, sources)
        assert "javascript:" not in response.content.decode(), name


def test_the_sign_in_page_has_the_policy_but_may_be_cached_like_any_anonymous_page(client):
    response = client.get("/dashboard/login/")
    assert _directives(response)["script-src"] == ["'self'"]
    assert "geolocation=()" in response["Permissions-Policy"]


def test_the_confirmations_and_the_tenant_switch_are_wired_by_the_static_script(client, tenant_a):
    user = staff_owner(tenant_a.tenant, make_user)
    fill(tenant_a.tenant, user)
    client.force_login(user)
    page = BeautifulSoup(client.get("/dashboard/keys/").content, "html.parser")
    assert page.find("script", src=lambda s: s and s.endswith("dashboard/forms.js"))
    webhooks = BeautifulSoup(client.get("/dashboard/webhooks/").content, "html.parser")
    assert webhooks.find("form", attrs={"data-confirm": True})
