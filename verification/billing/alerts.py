"""Quota and budget alerts: at 80 % and 100 % of the monthly quota or budget, an e-mail to the
tenant's owners and a `usage.threshold` webhook event, each sent once per month.

`check_all` runs in the console's housekeeping task (every minute), not in the request: the
`UsageAlert` row, unique per tenant, month, metric and threshold, is the "sent" mark, so two
workers checking at once still send one alert.
"""

from __future__ import annotations

import datetime as dt
import logging
import smtplib
from decimal import ROUND_HALF_UP, Decimal

from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from tenants.models import Membership, Tenant

from ..models import UsageAlert
from ..webhooks.dispatch import enqueue, tenant_event_deliveries
from .meter import Meter, meter

log = logging.getLogger(__name__)

EVENT = "usage.threshold"
CENT = Decimal("0.01")
THRESHOLDS = (80, 100)


def _crossed(m: Meter) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for metric, pct in (
        (UsageAlert.VERIFICATIONS, m.verifications_pct),
        (UsageAlert.SPEND, m.spend_pct),
    ):
        out.extend((metric, t) for t in THRESHOLDS if pct is not None and pct >= t)
    return out


def _data(tenant: Tenant, alert: UsageAlert, m: Meter) -> dict:
    hard = alert.metric == UsageAlert.SPEND and m.hard
    return {
        "tenant": tenant.slug,
        "period": alert.period,
        "metric": alert.metric,
        "threshold_percent": alert.threshold,
        "used": str(alert.used),
        "limit": str(alert.limit),
        "unit": "USD" if alert.metric == UsageAlert.SPEND else "verifications",
        "enforced": alert.metric == UsageAlert.VERIFICATIONS or hard,
    }


def _message(tenant: Tenant, alert: UsageAlert, m: Meter) -> str:
    if alert.metric == UsageAlert.SPEND:
        what = f"${alert.used} of its ${alert.limit} monthly budget"
        after = (
            "New verifications are refused (402) until next month or a higher budget."
            if m.hard
            else "The budget is soft: verifications go on."
        )
    else:
        what = f"{int(alert.used):,} of its {int(alert.limit):,} monthly verifications"
        after = "New verifications are refused (429) until next month."
    reached = "has used" if alert.threshold < 100 else "has reached"
    text = f"{tenant.name} {reached} {what} ({alert.threshold} %) in {alert.period} (UTC)."
    return text + (f" {after}" if alert.threshold >= 100 else "")


def _mail(tenant: Tenant, alert: UsageAlert, m: Meter) -> None:
    owners = list(
        Membership.objects.filter(tenant=tenant, role=Membership.OWNER)
        .exclude(user__email="")
        .values_list("user__email", flat=True)
    )
    if not owners:
        return
    try:
        send_mail(
            f"TruthLens: {tenant.name} at {alert.threshold} % of its monthly {alert.metric}",
            _message(tenant, alert, m) + "\n",
            None,
            owners,
        )
    except (OSError, smtplib.SMTPException):
        log.exception("usage alert mail of tenant %s failed", tenant.pk)


def _deliveries(tenant: Tenant, alert: UsageAlert, m: Meter) -> list[int]:
    return tenant_event_deliveries(tenant.pk, EVENT, _data(tenant, alert, m))


def check(tenant: Tenant, now: dt.datetime | None = None) -> list[UsageAlert]:
    """Send the alerts this month's use newly crossed; returns them."""
    m = meter(tenant, now)
    fired = []
    for metric, threshold in _crossed(m):
        used = m.verifications if metric == UsageAlert.VERIFICATIONS else m.spend
        limit = m.quota if metric == UsageAlert.VERIFICATIONS else m.budget
        if limit is None:  # no limit, no percentage: never crossed
            continue
        try:
            with transaction.atomic():
                alert = UsageAlert.objects.create(
                    tenant=tenant,
                    period=m.period,
                    metric=metric,
                    threshold=threshold,
                    used=Decimal(used).quantize(CENT, ROUND_HALF_UP),
                    limit=Decimal(limit).quantize(CENT, ROUND_HALF_UP),
                    created_at=now or timezone.now(),
                )
                ids = _deliveries(tenant, alert, m)
                transaction.on_commit(lambda ids=ids: enqueue(ids))
        except IntegrityError:
            continue  # sent before, this month
        _mail(tenant, alert, m)
        fired.append(alert)
    return fired


def check_all(now: dt.datetime | None = None) -> int:
    """Check every active tenant with a quota or a budget; returns the alerts sent."""
    tenants = Tenant.objects.filter(is_active=True).filter(
        Q(plan__monthly_quota__gt=0) | Q(monthly_budget_usd__isnull=False)
    )
    return sum(len(check(t, now)) for t in tenants.select_related("plan"))
