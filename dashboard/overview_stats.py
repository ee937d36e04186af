"""Numbers behind the overview page, computed in Postgres (no per-row Python loops)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Aggregate, Avg, Count, F, FloatField, Q, Sum, Value
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Floor, Least, TruncDate

from verification.models import JobStatus, UsageRecord, VerificationJob, plan_key

from .daterange import DateRange

SCORE_BINS = 10


class Percentile(Aggregate):
    """Postgres `percentile_cont(p) WITHIN GROUP (ORDER BY expr)`."""

    function = "percentile_cont"
    template = "%(function)s(%(percentile)s) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()

    def __init__(self, expression, percentile: float, **extra):
        if not 0 <= percentile <= 1:
            raise ValueError("percentile must be in [0, 1]")
        super().__init__(expression, percentile=percentile, **extra)


@dataclass
class Overview:
    total: int = 0
    completed: int = 0
    failed: int = 0
    detected: int = 0
    avg_score: float | None = None
    revenue: float = 0.0
    provider_cost: float = 0.0
    tenant_provider_cost: float = 0.0  # paid by the tenant with its own keys: never billed
    per_day: list[dict[str, Any]] = field(default_factory=list)
    score_bins: list[int] = field(default_factory=lambda: [0] * SCORE_BINS)
    latency_by_mode: list[dict[str, Any]] = field(default_factory=list)
    cost_per_day: list[dict[str, Any]] = field(default_factory=list)
    by_decision: list[dict[str, Any]] = field(default_factory=list)
    by_query_type: list[dict[str, Any]] = field(default_factory=list)

    @property
    def detection_rate(self) -> float | None:
        scored = self.completed
        return self.detected / scored if scored else None

    def charts(self) -> dict[str, Any]:
        """The JSON the chart script draws (labels and series only, no markup)."""
        return {
            "perDay": {
                "labels": [d["day"] for d in self.per_day],
                "total": [d["total"] for d in self.per_day],
                "detected": [d["detected"] for d in self.per_day],
            },
            "scores": {
                "labels": [
                    f"{i / SCORE_BINS:.1f}–{(i + 1) / SCORE_BINS:.1f}" for i in range(SCORE_BINS)
                ],
                "counts": self.score_bins,
            },
            "latency": {
                "labels": [r["mode"] for r in self.latency_by_mode],
                "p50": [r["p50"] for r in self.latency_by_mode],
                "p95": [r["p95"] for r in self.latency_by_mode],
            },
            "cost": {
                "labels": [d["day"] for d in self.cost_per_day],
                "price": [d["price"] for d in self.cost_per_day],
                "provider": [d["provider"] for d in self.cost_per_day],
            },
            "decisions": _breakdown_chart(self.by_decision),
            "queryTypes": _breakdown_chart(self.by_query_type),
        }


def _breakdown_chart(rows: list[dict[str, Any]]) -> dict[str, list]:
    return {
        "labels": [r["name"] for r in rows],
        "total": [r["total"] for r in rows],
        "detected": [r["detected"] for r in rows],
    }


def _daily(rows, period: DateRange, **aggregates) -> list[dict[str, Any]]:
    """`aggregates` of `rows` per day of `period`, every day present (None where no row)."""
    found = {
        r["day"]: r
        for r in rows.annotate(day=TruncDate("created_at")).values("day").annotate(**aggregates)
    }
    return [
        {"day": day.isoformat(), **{k: found.get(day, {}).get(k) for k in aggregates}}
        for day in period.days()
    ]


def _breakdown(jobs, column: str) -> list[dict[str, Any]]:
    """Jobs by a key of their plan (`decision`, `query_type`)."""
    rows = (
        jobs.values(**{column: plan_key(column)})
        .annotate(
            total=Count("id"), detected=Count("id", filter=Q(detected=True)), avg=Avg("score")
        )
        .order_by("-total")
    )
    return [
        {
            "name": r[column] or "—",
            "total": r["total"],
            "detected": r["detected"],
            "rate": r["detected"] / r["total"] if r["total"] else 0,
            "avg_score": r["avg"],
        }
        for r in rows
    ]


def overview(jobs, usage, period: DateRange) -> Overview:
    """Aggregate tenant-scoped `jobs` and `usage` querysets over `period`."""
    jobs = jobs.filter(created_at__gte=period.start_at, created_at__lt=period.end_before)
    usage = usage.filter(created_at__gte=period.start_at, created_at__lt=period.end_before)
    out = Overview()

    totals = jobs.aggregate(
        total=Count("id"),
        completed=Count("id", filter=Q(status=JobStatus.COMPLETED, score__isnull=False)),
        failed=Count("id", filter=Q(status=JobStatus.FAILED)),
        detected=Count("id", filter=Q(detected=True)),
        avg_score=Avg("score"),
    )
    out.total, out.completed, out.failed = totals["total"], totals["completed"], totals["failed"]
    out.detected, out.avg_score = totals["detected"], totals["avg_score"]

    out.per_day = [
        {"day": d["day"], "total": d["total"] or 0, "detected": d["detected"] or 0}
        for d in _daily(
            jobs, period, total=Count("id"), detected=Count("id", filter=Q(detected=True))
        )
    ]

    bins = (
        jobs.filter(score__isnull=False)
        .annotate(
            bin=Least(Cast(Floor(F("score") * SCORE_BINS), FloatField()), Value(SCORE_BINS - 1.0))
        )
        .values("bin")
        .annotate(n=Count("id"))
    )
    for r in bins:
        out.score_bins[max(0, int(r["bin"]))] += r["n"]

    total_ms = Cast(KT("latency_ms__total"), FloatField())
    latency = (
        jobs.filter(status=JobStatus.COMPLETED, latency_ms__has_key="total")
        .values(mode=plan_key("mode"))
        .exclude(mode="")
        .annotate(p50=Percentile(total_ms, 0.5), p95=Percentile(total_ms, 0.95), n=Count("id"))
        .order_by("mode")
    )
    out.latency_by_mode = [
        {"mode": r["mode"], "p50": round(r["p50"] or 0), "p95": round(r["p95"] or 0), "n": r["n"]}
        for r in latency
    ]

    money = usage.aggregate(
        price=Sum("price_usd"),
        provider=Sum("provider_cost_usd"),
        tenant=Sum("tenant_provider_cost_usd"),
    )
    out.revenue = float(money["price"] or 0)
    out.provider_cost = float(money["provider"] or 0)
    out.tenant_provider_cost = float(money["tenant"] or 0)
    out.cost_per_day = [
        {
            "day": d["day"],
            "price": round(float(d["price"] or 0), 6),
            "provider": round(float(d["provider"] or 0), 6),
        }
        for d in _daily(usage, period, price=Sum("price_usd"), provider=Sum("provider_cost_usd"))
    ]

    out.by_decision = _breakdown(jobs, "decision")
    out.by_query_type = _breakdown(jobs, "query_type")
    return out


def scoped_sources(scope) -> tuple[Any, Any]:
    """The tenant's jobs and usage rows, through the scope chokepoint."""
    return (
        scope.filter(VerificationJob.objects.all()),
        scope.filter(UsageRecord.objects.all()),
    )
