"""This month's use against the tenant's limits: verifications against the plan's monthly
quota, spend (our price) against the tenant's optional monthly budget. UTC months."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Sum
from django.utils import timezone

from tenants.models import Tenant

from ..models import UsageRecord, VerificationJob


def month_start(now: dt.datetime) -> dt.datetime:
    return now.astimezone(dt.UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def next_month(start: dt.datetime) -> dt.datetime:
    return (start + dt.timedelta(days=32)).replace(day=1)


def spend_since(tenant: Tenant, start: dt.datetime) -> Decimal:
    """What the tenant's finished jobs since `start` are billed (jobs still running are not
    priced yet, so a hard budget can be passed by what is in flight)."""
    total = UsageRecord.objects.filter(tenant=tenant, created_at__gte=start).aggregate(
        total=Sum("price_usd")
    )["total"]
    return total or Decimal(0)


def _pct(used: Decimal | int, limit: Decimal | int | None) -> float | None:
    if not limit:
        return None
    return float(Decimal(used) * 100 / Decimal(limit))


@dataclass(frozen=True)
class Meter:
    period: str  # YYYY-MM
    verifications: int
    quota: int  # 0: none
    spend: Decimal
    budget: Decimal | None
    hard: bool

    @property
    def verifications_pct(self) -> float | None:
        return _pct(self.verifications, self.quota)

    @property
    def spend_pct(self) -> float | None:
        return _pct(self.spend, self.budget)


def meter(tenant: Tenant, now: dt.datetime | None = None) -> Meter:
    start = month_start(now or timezone.now())
    quota = tenant.plan.monthly_quota if tenant.plan_id and tenant.plan else 0
    return Meter(
        period=start.strftime("%Y-%m"),
        verifications=VerificationJob.objects.filter(tenant=tenant, created_at__gte=start).count(),
        quota=quota,
        spend=spend_since(tenant, start),
        budget=tenant.monthly_budget_usd,
        hard=tenant.budget_hard,
    )
