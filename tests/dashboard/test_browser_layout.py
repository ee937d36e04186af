"""Browser checks of the layout (every page at 1366 and 390 px wide), the folding menu, and
that a refresh after creating a key or rotating a secret repeats nothing."""

from __future__ import annotations

import pytest

from tenants.models import ApiKey, WebhookEndpoint

from .conftest import make_user
from .pages import fill, staff_owner
from .test_browser import chromium, page, sign_in  # noqa: F401 - fixtures

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (1366, 390)
OVERFLOW_JS = "() => [document.documentElement.scrollWidth, window.innerWidth]"
# the elements that stick out to the right, for the failure message (those inside a
# scrolling table count only when they escape it, as absolute ones without a positioned
# wrapper do)
CULPRITS_JS = """() => {
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    const clipped = el.parentElement.closest('.table-wrap')
      && getComputedStyle(el).position !== 'absolute';
    if (r.right > window.innerWidth + 1 && !clipped) {
      out.push(el.tagName + '.' + el.className + ' ' + Math.round(r.right));
    }
  }
  return out.slice(0, 12);
}"""


def test_no_page_is_wider_than_the_window(page, live_server, tenant_a):  # noqa: F811
    # given every page with long URLs, queries and diff lines
    user = staff_owner(tenant_a.tenant, make_user)
    urls = fill(tenant_a.tenant, user)
    sign_in(page, live_server, user.username)
    # when each is drawn at a laptop's and a phone's width
    measured = {}
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        for name, url in urls.items():
            response = page.goto(f"{live_server.url}{url}")
            assert response.status == 200, name
            scroll_width, inner_width = page.evaluate(OVERFLOW_JS)
            culprits = page.evaluate(CULPRITS_JS) if scroll_width > inner_width else []
            measured[(name, width)] = (scroll_width, inner_width, culprits)
    # then none scrolls sideways as a whole (wide tables scroll inside their cards)
    too_wide = {k: v for k, v in measured.items() if v[0] > v[1]}
    print({k: v[0] for k, v in measured.items()})  # the widths, for the record (-s)
    assert too_wide == {}
    assert len(measured) == 2 * len(urls)


def test_the_menu_folds_on_a_phone_and_opens_with_its_button(
    page,  # noqa: F811
    live_server,
    owner_a,
):
    sign_in(page, live_server, owner_a.username)
    page.set_viewport_size({"width": 390, "height": 800})
    page.goto(f"{live_server.url}/dashboard/")
    toggle = page.get_by_role("button", name="Menu")
    nav_link = page.get_by_role("link", name="Webhooks")
    assert toggle.get_attribute("aria-expanded") == "false"
    assert not nav_link.is_visible()
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "true"
    assert nav_link.is_visible()
    page.set_viewport_size({"width": 1366, "height": 800})
    assert not toggle.is_visible()  # wide screens always show the sidebar
    assert nav_link.is_visible()


def test_reloading_after_creating_a_key_creates_no_second_key(
    page,  # noqa: F811
    live_server,
    owner_a,
    tenant_a,
):
    sign_in(page, live_server, owner_a.username)
    page.goto(f"{live_server.url}/dashboard/keys/")
    page.get_by_label("Name").fill("from-the-browser")
    page.get_by_role("button", name="Create key").click()
    token = page.locator("#new-token").inner_text()
    assert token.startswith("tl_")
    page.reload()
    assert ApiKey.objects.filter(tenant=tenant_a.tenant, name="from-the-browser").count() == 1
    assert page.locator("#new-token").count() == 0  # shown once


def test_reloading_after_rotating_a_secret_rotates_once(
    page,  # noqa: F811
    live_server,
    owner_a,
    tenant_a,
):
    endpoint = WebhookEndpoint(tenant=tenant_a.tenant, url="https://hooks.example.com/tl")
    first = endpoint.set_new_secret()
    endpoint.save()
    sign_in(page, live_server, owner_a.username)
    page.goto(f"{live_server.url}/dashboard/webhooks/")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Rotate secret").click()
    shown = page.locator("#new-secret").inner_text()
    endpoint.refresh_from_db()
    assert shown == endpoint.secret != first
    page.reload()
    endpoint.refresh_from_db()
    assert endpoint.secret == shown  # not rotated again
    assert endpoint.signing_secrets() == [shown, first]
    assert page.locator("#new-secret").count() == 0
    assert page.url.endswith("/dashboard/webhooks/")


def test_the_copy_button_puts_the_secret_on_the_clipboard(
    page,  # noqa: F811
    live_server,
    owner_a,
):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    sign_in(page, live_server, owner_a.username)
    page.goto(f"{live_server.url}/dashboard/keys/")
    page.get_by_role("button", name="Create key").click()
    token = page.locator("#new-token").inner_text()
    page.get_by_role("alert").get_by_role("button", name="Copy").click()  # not a quickstart's
    page.get_by_text("Copied.").wait_for()
    assert page.evaluate("() => navigator.clipboard.readText()") == token
