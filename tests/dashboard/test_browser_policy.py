"""Browser tests of the policy editor: a full policy saved untouched comes back identical,
two tabs saving the same version (the second is refused and shown the diff), and the
billing report's downloads and money format as a browser sees them."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal
from pathlib import Path

import pytest
from django.utils import timezone

from dashboard.models import PolicyChange
from dashboard.policy.actions import current_document, save_policy
from engine.policy import PolicyDocument
from tenants.models import Policy

from . import test_browser
from .conftest import add_usage, make_job
from .policy_full import FULL, unset_fields

# The Chromium fixtures of test_browser.py, shared with this module.
chromium, page, sign_in = test_browser.chromium, test_browser.page, test_browser.sign_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("providers_a"),
]


@pytest.fixture
def full_policy(tenant_a, owner_a):
    document = PolicyDocument.model_validate(FULL)
    assert unset_fields(document) == []
    save_policy(tenant_a.tenant, owner_a, document, PolicyChange.EDITOR)
    return document


def test_saving_the_editor_untouched_keeps_every_field(
    page, live_server, owner_a, tenant_a, full_policy
):
    # given a policy with a non-default value in every field, opened in the editor
    sign_in(page, live_server, "owner-a")
    page.goto(f"{live_server.url}/dashboard/policy/")
    assert page.locator("#id_cascade_high").input_value() == "0.9"
    # when it is saved without touching anything
    page.get_by_role("button", name="Save policy").click()
    page.get_by_text("Nothing changed.").wait_for()
    # then the stored document is the same, field for field, and no version was added
    assert current_document(tenant_a.tenant).model_dump() == full_policy.model_dump()
    assert Policy.objects.get(tenant=tenant_a.tenant).version == 1


def test_a_second_tab_cannot_overwrite_the_first_silently(
    page, chromium, live_server, owner_a, tenant_a, full_policy
):
    # given the editor open in two tabs of the same session
    sign_in(page, live_server, "owner-a")
    page.goto(f"{live_server.url}/dashboard/policy/")
    other = page.context.new_page()
    other.goto(f"{live_server.url}/dashboard/policy/")
    # when the first tab saves, then the second
    page.locator("#id_threshold").fill("0.35")
    page.get_by_role("button", name="Save policy").click()
    page.get_by_text("Policy saved as version 2.").wait_for()
    other.locator("#id_threshold").fill("0.8")
    other.get_by_role("button", name="Save policy").click()
    # then the second is refused, keeps its edit and shows what differs from version 2
    other.locator("#policy-conflict").wait_for()
    diff = other.get_by_role("region", name="Difference between the saved policy and your edit")
    assert diff.locator(".del", has_text="threshold: 0.35").count() == 1
    assert diff.locator(".add", has_text="threshold: 0.8").count() == 1
    # long lines wrap inside the box instead of widening the page
    assert diff.locator("div").first.evaluate("el => getComputedStyle(el).whiteSpace") == (
        "pre-wrap"
    )
    assert other.locator("#id_threshold").input_value() == "0.8"
    assert current_document(tenant_a.tenant).threshold == 0.35
    # and saving again replaces version 2 knowingly
    other.get_by_role("button", name="Save policy").click()
    other.get_by_text("Policy saved as version 3.").wait_for()
    assert current_document(tenant_a.tenant).threshold == 0.8


def test_billing_downloads_and_money_as_shown(page, live_server, owner_a, tenant_a):
    now = timezone.now()
    add_usage(
        make_job(tenant_a.tenant),
        price_usd=Decimal("1234.5"),
        provider_cost_usd=Decimal("0"),
        detector_tokens=1_234_567,
        created_at=now,
    )
    month = f"{now.year:04d}-{now.month:02d}"
    sign_in(page, live_server, "owner-a")
    page.get_by_role("link", name="Usage & billing").click()
    body = page.locator("main").inner_text()
    assert "1,234,567" in body
    assert "$1,234.50" in body
    assert "E-" not in body
    with page.expect_download() as info:
        page.get_by_role("link", name="Download JSON").click()
    download = info.value
    assert download.suggested_filename == f"truthlens-tenant-a-{month}.json"
    data = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    assert data["provider_cost_usd"] == "0.00000000"
    with page.expect_download() as info:
        page.get_by_role("link", name="Download CSV").click()
    text = Path(info.value.path()).read_text(encoding="utf-8")
    total = next(r for r in csv.DictReader(io.StringIO(text)) if r["section"] == "total")
    assert total["price_usd"] == "1234.50000000"


def test_charts_use_one_money_format_and_straight_count_lines(
    page, chromium, live_server, staff_user, owner_a, tenant_a
):
    now = timezone.now()
    for price, cost in (("1.8", "0.0004"), ("0.8", "0.3")):
        add_usage(
            make_job(tenant_a.tenant),
            price_usd=Decimal(price),
            provider_cost_usd=Decimal(cost),
            created_at=now,
        )
    sign_in(page, live_server, "staff")
    page.goto(f"{live_server.url}/dashboard/revenue/")
    page.wait_for_function(
        "() => window.Chart && Chart.getChart(document.querySelector('canvas[data-chart=revenue]'))"
    )
    ticks, tooltip, tiny = page.evaluate(
        """() => {
          const chart = Chart.getChart(document.querySelector('canvas[data-chart=revenue]'));
          const label = chart.options.plugins.tooltip.callbacks.label;
          return [chart.scales.y.ticks.map(t => t.label),
                  label({dataset: {label: 'Revenue'}, parsed: {y: 2.6}}),
                  label({dataset: {label: 'Provider cost'}, parsed: {y: 0.0004}})];
        }"""
    )
    assert ticks, ticks
    assert all(t.startswith("$") and len(t.split(".")[1]) == 2 for t in ticks), ticks
    assert tooltip == "Revenue: $2.60"
    assert tiny == "Provider cost: $0.0004"  # below a cent: the digits that matter

    # the overview's count chart, as tenant A's owner sees it
    context = chromium.new_context()
    owner = context.new_page()
    sign_in(owner, live_server, "owner-a")
    owner.goto(f"{live_server.url}/dashboard/")
    owner.wait_for_function(
        "() => window.Chart && Chart.getChart(document.querySelector('canvas[data-chart=perDay]'))"
    )
    axis, tension = owner.evaluate(
        """() => {
          const chart = Chart.getChart(document.querySelector('canvas[data-chart=perDay]'));
          return [chart.options.scales.y, chart.data.datasets.map(d => d.tension)];
        }"""
    )
    assert axis["min"] == 0
    assert axis["ticks"]["precision"] == 0
    assert set(tension) == {0}
    context.close()
