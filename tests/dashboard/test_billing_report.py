"""Monthly billing reports: numbers checked against usage rows created here, in page, CSV and JSON."""

from __future__ import annotations

import csv
import datetime as dt
import io
from decimal import Decimal

import pytest
from django.urls import reverse

from tests.conftest import client_for
from verification.billing.report import BadMonth, monthly_report, report_as_csv, shift_month

from .conftest import add_usage, make_job

pytestmark = pytest.mark.django_db
MONTH = "2026-03"
IN_MONTH = dt.datetime(2026, 3, 10, 12, tzinfo=dt.UTC)


@pytest.fixture
def usage_a(tenant_a, plan):
    """Three jobs in March (two modes, two models), one in February, one of tenant B in March."""
    tenant = tenant_a.tenant
    tenant.plan = plan
    tenant.save()
    rows = []
    specs = [
        ("lightweight", 100, {}, "0", "0.00105", IN_MONTH),
        (
            "standard",
            300,
            {
                "openai/gpt-4o-mini": {
                    "calls": 2,
                    "prompt_tokens": 1600,
                    "completion_tokens": 200,
                    "cost_usd": 0.0009,
                }
            },
            "0.0009",
            "0.00523",
            IN_MONTH + dt.timedelta(days=5),
        ),
        (
            "standard",
            200,
            {
                "openai/gpt-4o-mini": {
                    "calls": 1,
                    "prompt_tokens": 800,
                    "completion_tokens": 100,
                    "cost_usd": 0.0004,
                },
                "anthropic/claude-3-5-haiku": {
                    "calls": 1,
                    "prompt_tokens": 900,
                    "completion_tokens": 80,
                    "cost_usd": 0.0011,
                },
            },
            "0.0015",
            "0.0059",
            dt.datetime(2026, 3, 31, 23, 59, 59, tzinfo=dt.UTC),
        ),
        ("lightweight", 999, {}, "0", "0.5", dt.datetime(2026, 2, 28, 23, 59, 59, tzinfo=dt.UTC)),
    ]
    for mode, tokens, per_model, cost, price, when in specs:
        job = make_job(tenant, mode=mode, detector_tokens=tokens, created_at=when)
        calls = sum(m["calls"] for m in per_model.values())
        rows.append(
            add_usage(
                job,
                created_at=when,
                mode=mode,
                detector_tokens=tokens,
                per_model=per_model,
                llm_calls=calls,
                prompt_tokens=sum(m["prompt_tokens"] for m in per_model.values()),
                completion_tokens=sum(m["completion_tokens"] for m in per_model.values()),
                provider_cost_usd=Decimal(cost),
                price_usd=Decimal(price),
            )
        )
    other = make_job(_other_tenant(), mode="premium", created_at=IN_MONTH)
    add_usage(
        other,
        created_at=IN_MONTH,
        mode="premium",
        price_usd=Decimal("9"),
        provider_cost_usd=Decimal("3"),
    )
    return rows


def _other_tenant():
    from tenants.models import Tenant

    return Tenant.objects.get_or_create(slug="tenant-b-billing", defaults={"name": "Other"})[0]


def test_report_sums_only_the_tenants_rows_of_that_month(tenant_a, usage_a):
    report = monthly_report(tenant_a.tenant, MONTH)
    assert report.verifications == 3
    assert report.detector_tokens == 600
    assert report.llm_calls == 4
    assert report.prompt_tokens == 3300
    assert report.completion_tokens == 380
    assert report.provider_cost_usd == Decimal("0.0024")
    assert report.price_usd == Decimal("0.01218")
    by_mode = {m.mode: m for m in report.by_mode}
    assert by_mode["lightweight"].verifications == 1
    assert by_mode["lightweight"].price_usd == Decimal("0.00105")
    assert by_mode["standard"].verifications == 2
    assert by_mode["standard"].detector_tokens == 500
    by_model = {m.model: m for m in report.by_model}
    assert by_model["openai/gpt-4o-mini"].calls == 3
    assert by_model["openai/gpt-4o-mini"].prompt_tokens == 2400
    assert by_model["openai/gpt-4o-mini"].provider_cost_usd == Decimal("0.0013")
    assert by_model["anthropic/claude-3-5-haiku"].provider_cost_usd == Decimal("0.0011")
    assert report.plan == "growth"
    assert report.plan_prices["price_per_verification"]["standard"] == 0.004


def test_february_is_separate(tenant_a, usage_a):
    report = monthly_report(tenant_a.tenant, "2026-02")
    assert report.verifications == 1
    assert report.price_usd == Decimal("0.5")


def test_bad_months_are_refused():
    for bad in ("2026-13", "2026-3", "march", ""):
        with pytest.raises(BadMonth):
            monthly_report(None, bad)
    assert shift_month("2026-01", -1) == "2025-12"
    assert shift_month("2026-12", 1) == "2027-01"


def test_csv_rows_add_up_to_the_total(tenant_a, usage_a):
    rows = list(csv.DictReader(io.StringIO(report_as_csv(monthly_report(tenant_a.tenant, MONTH)))))
    modes = [r for r in rows if r["section"] == "mode"]
    total = next(r for r in rows if r["section"] == "total")
    assert (
        sum(Decimal(m["price_usd"]) for m in modes)
        == Decimal(total["price_usd"])
        == Decimal("0.01218")
    )
    assert sum(int(m["verifications"]) for m in modes) == int(total["verifications"]) == 3


def test_dashboard_page_csv_and_json_agree(client, owner_a, usage_a):
    client.force_login(owner_a)
    page = client.get(reverse("dashboard:billing-month", kwargs={"month": MONTH}))
    assert page.status_code == 200
    assert b"$0.01" in page.content  # the total, 0.01218, to the cent
    assert b"$0.00105" in page.content  # below a cent: the digits that matter
    assert b"openai/gpt-4o-mini" in page.content
    data = client.get(reverse("dashboard:billing-json", kwargs={"month": MONTH})).json()
    assert data["verifications"] == 3
    assert data["price_usd"] == "0.01218000"
    response = client.get(reverse("dashboard:billing-csv", kwargs={"month": MONTH}))
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="truthlens-tenant-a-2026-03.csv"' in response["Content-Disposition"]
    assert (
        "tenant-a,2026-03,growth,total,,3,600,4,3300,380,0.00240000,0.01218000"
        in response.content.decode()
    )


def test_staff_revenue_shows_each_tenant(client, staff_user, usage_a):
    client.force_login(staff_user)
    body = client.get(reverse("dashboard:revenue"), {"month": MONTH}).content.decode()
    assert "tenant-a" in body
    assert "tenant-b-billing" in body
    assert "$9.00<" in body
    assert "$0.01<" in body  # 0.01218: two decimals from a cent up


class TestBillingApi:
    def test_json_report_for_the_keys_tenant(self, tenant_a, usage_a):
        response = client_for(tenant_a.token).get(f"/v1/billing/reports/{MONTH}")
        assert response.status_code == 200
        data = response.json()
        assert data["tenant"] == "tenant-a"
        assert data["verifications"] == 3
        assert data["price_usd"] == "0.01218000"
        assert data["provider_cost_usd"] == "0.00240000"

    def test_csv_by_query_parameter_and_by_accept_header(self, tenant_a, usage_a):
        api = client_for(tenant_a.token)
        for response in (
            api.get(f"/v1/billing/reports/{MONTH}?format=csv"),
            api.get(f"/v1/billing/reports/{MONTH}", HTTP_ACCEPT="text/csv"),
        ):
            assert response.status_code == 200
            assert response["Content-Type"].startswith("text/csv")
            assert (
                "tenant-a,2026-03,growth,total,,3,600,4,3300,380,0.00240000,0.01218000"
                in response.content.decode()
            )

    def test_other_tenants_key_gets_its_own_numbers(self, tenant_b, usage_a):
        data = client_for(tenant_b.token).get(f"/v1/billing/reports/{MONTH}").json()
        assert data["tenant"] == "tenant-b"
        assert data["verifications"] == 0

    @pytest.mark.parametrize("month", ["2026-13", "9999-12", "1999-12", "0001-01"])
    def test_bad_month_is_a_validation_problem(self, tenant_a, month):
        response = client_for(tenant_a.token).get(f"/v1/billing/reports/{month}")
        assert response.status_code == 400
        assert response["Content-Type"] == "application/problem+json"
        assert response.json()["errors"][0]["field"] == "month"

    def test_no_key_no_report(self, db):
        from rest_framework.test import APIClient

        assert APIClient().get(f"/v1/billing/reports/{MONTH}").status_code == 401


def test_csv_never_starts_a_cell_with_a_formula(tenant_a):
    job = make_job(tenant_a.tenant, mode="standard", created_at=IN_MONTH)
    add_usage(job, created_at=IN_MONTH, per_model={'=HYPERLINK("x")': {"calls": 1}})
    text = report_as_csv(monthly_report(tenant_a.tenant, MONTH))
    assert ",model,'=HYPERLINK" in text.replace('"', "")


def test_csv_starts_with_its_header_and_carries_tenant_and_month(tenant_a, usage_a):
    # given a month with usage
    text = report_as_csv(monthly_report(tenant_a.tenant, MONTH))
    # when a spreadsheet or pandas reads it, the first line is the header
    assert text.splitlines()[0].startswith("tenant,month,plan,section,key,")
    rows = list(csv.DictReader(io.StringIO(text)))
    # then every row says whose month it is, and nothing precedes the header
    assert {(r["tenant"], r["month"], r["plan"]) for r in rows} == {("tenant-a", MONTH, "growth")}
    assert [r["section"] for r in rows].count("total") == 1


@pytest.fixture
def zero_and_big_usage(tenant_a):
    """A month whose provider cost is exactly zero and whose token count needs separators."""
    job = make_job(tenant_a.tenant, mode="lightweight", created_at=IN_MONTH)
    add_usage(
        job,
        created_at=IN_MONTH,
        mode="lightweight",
        detector_tokens=1_234_567,
        provider_cost_usd=Decimal("0"),
        price_usd=Decimal("1234.5"),
    )


def test_zero_and_big_amounts_are_never_in_scientific_notation(
    client, owner_a, tenant_a, zero_and_big_usage
):
    client.force_login(owner_a)
    page = client.get(reverse("dashboard:billing-month", kwargs={"month": MONTH}))
    data = client.get(reverse("dashboard:billing-json", kwargs={"month": MONTH}))
    text = client.get(reverse("dashboard:billing-csv", kwargs={"month": MONTH}))
    for body in (page.content, data.content, text.content):
        assert b"E-" not in body
        assert b"e-0" not in body
    assert data.json()["provider_cost_usd"] == "0.00000000"
    assert data.json()["by_mode"][0]["provider_cost_usd"] == "0.00000000"
    row = next(
        r for r in csv.DictReader(io.StringIO(text.content.decode())) if r["section"] == "total"
    )
    assert row["provider_cost_usd"] == "0.00000000"
    html = page.content.decode()
    assert "1,234,567" in html  # detector tokens, with thousands separators
    assert "$1,234.50" in html  # money: separators and two decimals


def test_json_report_downloads_as_a_file(client, owner_a, usage_a):
    client.force_login(owner_a)
    response = client.get(reverse("dashboard:billing-json", kwargs={"month": MONTH}))
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == (
        'attachment; filename="truthlens-tenant-a-2026-03.json"'
    )
    page = client.get(reverse("dashboard:billing-month", kwargs={"month": MONTH})).content.decode()
    json_link = reverse("dashboard:billing-json", kwargs={"month": MONTH})
    assert f'href="{json_link}" download>' in page


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        (Decimal("0"), "$0.00"),
        (Decimal("0E-8"), "$0.00"),
        (Decimal("1.8"), "$1.80"),
        (Decimal("0.8"), "$0.80"),
        (Decimal("1234567.891"), "$1,234,567.89"),
        (Decimal("0.00105"), "$0.00105"),
        (Decimal("0.00000001"), "$0.00000001"),
        (Decimal("-2"), "-$2.00"),
        (None, "—"),
    ],
)
def test_money_has_two_decimals_and_more_only_below_a_cent(amount, shown):
    from dashboard.templatetags.dashboard_tags import money

    assert money(amount) == shown
