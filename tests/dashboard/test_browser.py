"""Browser tests: headless Chromium (Debian's, never downloaded) driven by Playwright.

Chromium comes from the system (`apt-get install chromium`); set
TRUTHLENS_CHROMIUM to use another binary. Without Playwright or the binary
the tests skip locally but fail under CI (`CI` set), so CI cannot pass them
by accident.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
from decimal import Decimal
from pathlib import Path

import pytest
from django.utils import timezone

from dashboard.management.commands.dashboard_screenshots import ARGS
from dashboard.policy.actions import current_document

from .conftest import PASSWORD, add_span, add_usage, make_job

CHROMIUM = os.environ.get("TRUTHLENS_CHROMIUM", "/usr/bin/chromium")

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _unavailable(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"browser tests must run in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def chromium():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed")
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        _unavailable(f"no Chromium at {CHROMIUM}")
    # Playwright's sync API runs an event loop in this thread; the ORM calls the
    # tests make around it are still plain synchronous calls.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            yield browser
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def page(chromium, live_server, settings):
    # live_server speaks plain HTTP; production keeps secure cookies.
    settings.SESSION_COOKIE_SECURE = False
    settings.CSRF_COOKIE_SECURE = False
    context = chromium.new_context(viewport={"width": 1366, "height": 900}, accept_downloads=True)
    context.set_default_timeout(15_000)
    tab = context.new_page()
    yield tab
    context.close()


def sign_in(page, live_server, username: str) -> None:
    page.goto(f"{live_server.url}/dashboard/verifications/")
    assert "/dashboard/login/" in page.url  # sent to sign in first
    page.get_by_label("E-mail").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{live_server.url}/dashboard/verifications/")


def test_sign_in_open_a_verification_and_see_highlighted_spans(
    page, live_server, owner_a, tenant_a
):
    job = make_job(tenant_a.tenant)
    add_span(job)
    add_span(job, text="330 metres", label="unsupported", confidence=0.62)
    add_usage(job)

    sign_in(page, live_server, "owner-a")
    page.get_by_role("link", name="When was the Eiffel Tower built?").click()
    page.wait_for_url(f"**/dashboard/verifications/{job.public_id}/")

    marks = page.locator("#answer mark.span")
    assert marks.count() == 2
    first = page.locator("#answer mark.span.contradiction")
    assert first.inner_text().startswith("1950")
    assert first.get_attribute("data-confidence") == "0.97"
    colour = first.evaluate("el => getComputedStyle(el).backgroundColor")
    other = page.locator("#answer mark.span.unsupported").evaluate(
        "el => getComputedStyle(el).backgroundColor"
    )
    assert colour != other
    assert colour not in ("rgba(0, 0, 0, 0)", "transparent")
    first.hover()
    tooltip = first.evaluate("el => getComputedStyle(el, '::after').content")
    assert "contradiction" in tooltip
    assert "0.97" in tooltip
    assert page.locator("mark.evidence").first.inner_text() == "built from 1887 to 1889"

    # the overview's charts are drawn by the vendored Chart.js
    page.get_by_role("link", name="Overview").click()
    page.wait_for_function(
        "() => window.Chart && Chart.getChart(document.querySelector('canvas[data-chart=perDay]'))"
    )


def test_edit_and_save_a_policy(page, live_server, owner_a, tenant_a):
    sign_in(page, live_server, "owner-a")
    page.goto(f"{live_server.url}/dashboard/policy/")
    page.locator("#id_threshold").fill("0.42")
    page.locator("#id_decisions-0-name").fill("legal")
    page.locator("#id_decisions-0-priority").fill("7")
    page.locator("#id_decisions-0-conditions").fill("keyword: contract\nquery_type: factual_qa")
    page.locator("#id_decisions-0-mode").select_option("standard")
    page.get_by_role("button", name="Save policy").click()
    page.get_by_text("Policy saved as version 1.").wait_for()

    saved = current_document(tenant_a.tenant)
    assert saved.threshold == 0.42
    assert [d.name for d in saved.decisions] == ["legal"]
    assert saved.decisions[0].plugins[0].configuration.mode == "standard"

    # an invalid value is refused with the reason next to the field
    page.locator("#id_threshold").fill("1.5")
    page.get_by_role("button", name="Save policy").click()
    page.locator(".field.has-error").first.wait_for()
    assert "less than or equal to 1" in page.locator(".field.has-error").first.inner_text()
    assert current_document(tenant_a.tenant).threshold == 0.42

    page.goto(f"{live_server.url}/dashboard/policy/history/")
    assert page.locator(".diff .add", has_text="threshold: 0.42").count() == 1


def test_download_the_monthly_billing_csv(page, live_server, owner_a, tenant_a):
    now = timezone.now()
    for price in ("0.0021", "0.0040"):
        add_usage(make_job(tenant_a.tenant), price_usd=Decimal(price), created_at=now)
    month = f"{now.year:04d}-{now.month:02d}"

    sign_in(page, live_server, "owner-a")
    page.get_by_role("link", name="Usage & billing").click()
    with page.expect_download() as info:
        page.get_by_role("link", name="Download CSV").click()
    download = info.value
    assert download.suggested_filename == f"truthlens-tenant-a-{month}.csv"
    text = Path(download.path()).read_text(encoding="utf-8")
    total = next(r for r in csv.DictReader(io.StringIO(text)) if r["section"] == "total")
    assert total["verifications"] == "2"
    assert Decimal(total["price_usd"]) == Decimal("0.0061")


def test_viewer_sees_no_edit_controls(page, live_server, viewer_a, tenant_a):
    sign_in(page, live_server, "viewer-a")
    page.goto(f"{live_server.url}/dashboard/policy/")
    assert page.get_by_role("button", name="Save policy").count() == 0
    assert page.locator("#id_threshold").is_disabled()
    page.goto(f"{live_server.url}/dashboard/keys/")
    assert page.get_by_role("button", name="Create key").count() == 0
