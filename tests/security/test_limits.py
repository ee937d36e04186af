"""Rate limits and monthly quotas answer 429 problem+json with Retry-After."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from tenants.models import ApiKey, Plan
from tests.conftest import client_for
from verification.models import VerificationJob

pytestmark = pytest.mark.django_db


def _plan(tenant, **fields) -> None:
    tenant.plan = Plan.objects.create(name=f"plan-{tenant.slug}", **fields)
    tenant.save()


def test_the_plan_rate_limit_answers_429_with_retry_after(tenant_a, client_a):
    _plan(tenant_a.tenant, rate_limit="3/min")
    codes = [client_a.get("/v1/verifications").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    limited = client_a.get("/v1/usage")
    assert limited.status_code == 429
    assert limited["Content-Type"] == "application/problem+json"
    assert limited.json()["type"].endswith("/rate-limited")
    assert 1 <= int(limited["Retry-After"]) <= 60


def test_the_monthly_quota_answers_429_until_next_month(tenant_a, client_a, eiffel):
    # given a plan with 2 verifications a month and one job from last month
    tenant = tenant_a.tenant
    _plan(tenant, monthly_quota=2)
    old = VerificationJob.objects.create(tenant=tenant, response="x", context=[])
    month_start = timezone.now().replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    VerificationJob.objects.filter(pk=old.pk).update(created_at=month_start - dt.timedelta(days=3))
    # when the tenant sends three
    first = client_a.post(
        "/v1/verifications", eiffel.request(), format="json", HTTP_IDEMPOTENCY_KEY="k1"
    )
    second = client_a.post("/v1/verifications", eiffel.request(), format="json")
    third = client_a.post("/v1/verifications", eiffel.request(), format="json")
    # then the third is refused with the time until the first of next month
    assert (first.status_code, second.status_code, third.status_code) == (202, 202, 429)
    assert third["Content-Type"] == "application/problem+json"
    problem = third.json()
    assert problem["type"].endswith("/quota-exceeded")
    assert problem["status"] == 429
    next_month = (month_start + dt.timedelta(days=32)).replace(day=1)
    expected = (next_month - timezone.now()).total_seconds()
    assert abs(int(third["Retry-After"]) - expected) < 60
    assert VerificationJob.objects.filter(tenant=tenant).count() == 3
    # and an idempotent replay of an accepted job and reads still work
    replay = client_a.post(
        "/v1/verifications", eiffel.request(), format="json", HTTP_IDEMPOTENCY_KEY="k1"
    )
    assert replay.status_code == 202
    assert replay["Idempotent-Replayed"] == "true"
    assert client_a.get("/v1/verifications").status_code == 200


def test_the_quota_is_per_tenant(tenant_a, tenant_b, client_a, client_b, eiffel):
    _plan(tenant_a.tenant, monthly_quota=1)
    assert client_a.post("/v1/verifications", eiffel.request(), format="json").status_code == 202
    assert client_a.post("/v1/verifications", eiffel.request(), format="json").status_code == 429
    assert client_b.post("/v1/verifications", eiffel.request(), format="json").status_code == 202


def test_no_quota_means_unlimited(tenant_a, client_a, eiffel):
    _plan(tenant_a.tenant, monthly_quota=0)
    codes = {
        client_a.post("/v1/verifications", eiffel.request(), format="json").status_code
        for _ in range(3)
    }
    assert codes == {202}


def test_the_rate_limit_is_shared_by_all_keys_of_a_tenant(tenant_a, tenant_b, client_a, client_b):
    _plan(tenant_a.tenant, rate_limit="2/min")
    _, second_key = ApiKey.issue(tenant_a.tenant, name="second")
    assert client_a.get("/v1/verifications").status_code == 200
    assert client_for(second_key).get("/v1/verifications").status_code == 200
    # a new key does not get a fresh allowance, but another tenant is not affected
    assert client_for(second_key).get("/v1/verifications").status_code == 429
    assert client_b.get("/v1/verifications").status_code == 200
