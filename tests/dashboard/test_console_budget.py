"""Quota and budget: the overview's meter, alerts at 80 % and 100 % (mail and a
`usage.threshold` webhook, once per month), a hard budget answering 402, a soft one not."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from tenants.audit import AuditEvent
from tenants.models import Plan, WebhookEndpoint
from tests.conftest import client_for
from verification.billing import alerts
from verification.models import UsageAlert, WebhookDelivery

from .conftest import add_usage, make_job

pytestmark = pytest.mark.django_db


@pytest.fixture
def quota_plan(db):
    return Plan.objects.create(name="small", monthly_quota=10)


def _spend(tenant, dollars: str, n: int = 1, when=None):
    for _ in range(n):
        add_usage(make_job(tenant), price_usd=Decimal(dollars), created_at=when)


def _endpoint(tenant, events=("usage.threshold",)):
    endpoint = WebhookEndpoint(
        tenant=tenant, url="https://hooks.example.com/t", events=list(events)
    )
    endpoint.set_new_secret()
    endpoint.save()
    return endpoint


def test_overview_meter_shows_quota_and_budget(client, owner_a, tenant_a, quota_plan):
    tenant = tenant_a.tenant
    tenant.plan = quota_plan
    tenant.monthly_budget_usd = Decimal("20.00")
    tenant.save()
    _spend(tenant, "2.50", n=4)  # 4 of 10 verifications, $10 of $20
    client.force_login(owner_a)
    page = client.get(reverse("dashboard:overview"))
    meter = page.context["meter"]
    assert (meter.verifications, meter.quota) == (4, 10)
    assert meter.spend == Decimal("10.00")
    assert meter.verifications_pct == pytest.approx(40)
    assert meter.spend_pct == pytest.approx(50)
    html = page.content.decode()
    assert "4 of 10 (40 %)" in html
    assert "$10.00 of $20.00 (50 %)" in html
    assert "soft: alerts only" in html


def test_last_months_spend_does_not_count(tenant_a):
    tenant = tenant_a.tenant
    tenant.monthly_budget_usd = Decimal("10")
    tenant.save()
    start = timezone.now().astimezone(dt.UTC).replace(day=1, hour=0, minute=0)
    _spend(tenant, "50", when=start - dt.timedelta(days=2))
    assert alerts.check(tenant) == []


def test_alerts_at_80_and_100_percent_once_each_by_mail_and_webhook(
    tenant_a, owner_a, admin_a, mailoutbox, quota_plan
):
    tenant = tenant_a.tenant
    tenant.monthly_budget_usd = Decimal("10")
    tenant.save()
    endpoint = _endpoint(tenant)
    _endpoint(tenant, events=("verification.completed",))  # does not want it
    _spend(tenant, "8.00")
    fired = alerts.check(tenant)
    assert [(a.metric, a.threshold) for a in fired] == [("spend", 80)]
    assert len(mailoutbox) == 1
    assert mailoutbox[0].to == [owner_a.email]  # owners only, not admins
    assert "$8.00 of its $10.00 monthly budget (80 %)" in mailoutbox[0].body
    delivery = WebhookDelivery.objects.get()
    assert delivery.endpoint == endpoint
    assert delivery.event_type == "usage.threshold"
    data = delivery.payload["data"]
    assert data["metric"] == "spend"
    assert data["threshold_percent"] == 80
    assert (data["used"], data["limit"], data["enforced"]) == ("8.00", "10.00", False)
    assert alerts.check(tenant) == []  # once per period
    _spend(tenant, "2.00")
    assert [(a.threshold) for a in alerts.check(tenant)] == [100]
    assert alerts.check(tenant) == []
    assert len(mailoutbox) == 2
    assert WebhookDelivery.objects.count() == 2
    # the quota crosses both thresholds at once: two alerts, each once
    tenant.plan = quota_plan
    tenant.save()
    _spend(tenant, "0", n=8)  # 10 jobs of 10
    fired = alerts.check(tenant)
    assert sorted((a.metric, a.threshold) for a in fired) == [
        ("verifications", 80),
        ("verifications", 100),
    ]
    assert alerts.check_all() == 0


def test_a_new_month_alerts_again(tenant_a, owner_a, mailoutbox):
    tenant = tenant_a.tenant
    tenant.monthly_budget_usd = Decimal("1")
    tenant.save()
    _spend(tenant, "1")
    assert len(alerts.check(tenant)) == 2
    next_month = timezone.now() + dt.timedelta(days=40)
    _spend(tenant, "1", when=next_month)
    assert len(alerts.check(tenant, now=next_month)) == 2
    assert UsageAlert.objects.values("period").distinct().count() == 2


def test_check_all_visits_only_tenants_with_a_limit(tenant_a, tenant_b, owner_a, mailoutbox):
    _spend(tenant_b.tenant, "100")  # no budget, no quota: nothing to alert
    tenant_a.tenant.monthly_budget_usd = Decimal("5")
    tenant_a.tenant.save()
    _spend(tenant_a.tenant, "5")
    assert alerts.check_all() == 2
    assert set(UsageAlert.objects.values_list("tenant_id", flat=True)) == {tenant_a.tenant.pk}


def test_a_hard_budget_answers_402_and_a_soft_one_does_not(tenant_a, eiffel):
    tenant = tenant_a.tenant
    tenant.monthly_budget_usd = Decimal("1.00")
    tenant.budget_hard = False
    tenant.save()
    _spend(tenant, "1.00")
    api = client_for(tenant_a.token)
    assert api.post("/v1/verifications", eiffel.request(), format="json").status_code == 202
    tenant.budget_hard = True
    tenant.save()
    refused = api.post("/v1/verifications", eiffel.request(), format="json")
    assert refused.status_code == 402
    body = refused.json()
    assert refused["Content-Type"].startswith("application/problem+json")
    assert body["type"].endswith("/budget-exceeded")
    assert body["title"] == "Monthly budget reached"
    assert "monthly budget of $1.00 is spent" in body["detail"]
    assert int(refused["Retry-After"]) > 0


def test_another_tenants_hard_budget_does_not_refuse_this_one(tenant_a, tenant_b, eiffel):
    other = tenant_b.tenant
    other.monthly_budget_usd, other.budget_hard = Decimal("1"), True
    other.save()
    _spend(other, "5")
    _spend(tenant_a.tenant, "5")
    api = client_for(tenant_a.token)
    assert api.post("/v1/verifications", eiffel.request(), format="json").status_code == 202
    assert (
        client_for(tenant_b.token)
        .post("/v1/verifications", eiffel.request(), format="json")
        .status_code
        == 402
    )


def test_owners_set_the_budget_viewers_cannot_and_bad_values_are_refused(
    client, owner_a, viewer_a, tenant_a
):
    url = reverse("dashboard:budget")
    client.force_login(viewer_a)
    assert client.post(url, {"monthly_budget_usd": "5", "budget_hard": "true"}).status_code == 403
    client.force_login(owner_a)
    for bad in ("-1", "abc", "0", "1e20", "1.234"):
        answer = client.post(url, {"monthly_budget_usd": bad, "budget_hard": "true"})
        assert answer.status_code == 400, bad
        assert "errorlist" in answer.content.decode()
    assert (
        client.post(url, {"monthly_budget_usd": "12.50", "budget_hard": "true"}).status_code == 302
    )
    tenant_a.tenant.refresh_from_db()
    assert (tenant_a.tenant.monthly_budget_usd, tenant_a.tenant.budget_hard) == (
        Decimal("12.50"),
        True,
    )
    assert AuditEvent.objects.get(action="budget.changed").details == {
        "monthly_budget_usd": "12.50",
        "hard": True,
    }
    client.post(url, {"monthly_budget_usd": "", "budget_hard": "true"})  # no budget: not hard
    tenant_a.tenant.refresh_from_db()
    assert (tenant_a.tenant.monthly_budget_usd, tenant_a.tenant.budget_hard) == (None, False)
