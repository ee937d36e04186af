"""Drift: per week, how often the verdicts agree with the reviewers' labels on the random
sample (the unbiased part of the queue). When the latest complete week falls more than the
tenant's margin below the weeks before it, a banner shows on the overview and a
`quality.drift` webhook event goes out (once per week)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from verification.webhooks.dispatch import enqueue, tenant_event_deliveries

from .labels import consensus
from .models import Label
from .queue import settings_for

EVENT = "quality.drift"
MIN_WEEK_LABELS = 10  # a week with fewer sampled labels is shown but never alerts
BASELINE_WEEKS = 4


@dataclass(frozen=True)
class Week:
    start: dt.date  # Monday
    n: int
    agreeing: int

    @property
    def agreement(self) -> float:
        return self.agreeing / self.n if self.n else 0.0


@dataclass(frozen=True)
class Drift:
    week: Week
    baseline: float
    margin: float

    @property
    def drop(self) -> float:
        return self.baseline - self.week.agreement


def _monday(when: dt.datetime) -> dt.date:
    day = timezone.localtime(when).date() if timezone.is_aware(when) else when.date()
    return day - dt.timedelta(days=day.weekday())


def weekly_agreement(tenant, weeks: int = 12) -> list[Week]:
    """Sampled, labelled answers per week of their verification, oldest first."""
    since = timezone.now() - dt.timedelta(weeks=weeks)
    labels = (
        Label.objects.filter(
            tenant=tenant, job__review_item__in_sample=True, job__created_at__gte=since
        )
        .select_related("job")
        .order_by("job_id", "id")
    )
    by_job: dict = {}
    for label in labels:
        by_job.setdefault(label.job_id, []).append(label)
    counts: dict[dt.date, list[int]] = {}
    for job_labels in by_job.values():
        agreed = consensus(job_labels)
        job = job_labels[0].job
        if agreed is None or job.detected is None:
            continue
        week = counts.setdefault(_monday(job.created_at), [0, 0])
        week[0] += 1
        week[1] += int(agreed.label == int(job.detected))
    return [Week(start, n, a) for start, (n, a) in sorted(counts.items())]


def current_drift(tenant, now: dt.datetime | None = None) -> Drift | None:
    """The drift of the latest complete week, when it is beyond the tenant's margin."""
    this_week = _monday(now or timezone.now())
    weeks = [w for w in weekly_agreement(tenant) if w.start < this_week]
    if len(weeks) < 2 or weeks[-1].n < MIN_WEEK_LABELS:
        return None
    latest, before = weeks[-1], weeks[-1 - BASELINE_WEEKS : -1]
    n = sum(w.n for w in before)
    if n < MIN_WEEK_LABELS:
        return None
    baseline = sum(w.agreeing for w in before) / n
    margin = settings_for(tenant).drift_margin
    drift = Drift(latest, baseline, margin)
    return drift if drift.drop > margin else None


def check_drift(tenant, now: dt.datetime | None = None) -> list[int]:
    """Alert once per week: webhook deliveries of `quality.drift` (their ids, enqueued after
    commit); [] when there is no drift or this week's alert has gone out already."""
    drift = current_drift(tenant, now)
    if drift is None:
        return []
    with transaction.atomic():
        quality = settings_for(tenant)
        quality = type(quality).objects.select_for_update().get(pk=quality.pk)
        if quality.drift_alert_week == drift.week.start:
            return []
        quality.drift_alert_week = drift.week.start
        quality.save(update_fields=["drift_alert_week"])
        data = {
            "tenant": tenant.slug,
            "week": drift.week.start.isoformat(),
            "agreement": round(drift.week.agreement, 4),
            "baseline": round(drift.baseline, 4),
            "margin": drift.margin,
            "labels": drift.week.n,
        }
        ids = tenant_event_deliveries(tenant.pk, EVENT, data)
        transaction.on_commit(lambda: enqueue(ids))
    return ids
