"""Monthly billing report of one tenant (docs/architecture.md "Billing and metrics"), as data, JSON-ready
dict and CSV.

Shared by the dashboard pages and `GET /v1/billing/reports/{YYYY-MM}` so the
two can never disagree. Per-model LLM usage is read from
`UsageRecord.per_model`, a JSON object keyed by model name:
`{"openai/gpt-4o-mini": {"calls": 2, "prompt_tokens": 1650,
"completion_tokens": 210, "cost_usd": 0, "tenant_cost_usd": 0.00091}}`; missing
keys count as 0. `provider_cost_usd` is what the service paid providers (billed
with the plan's markup); `tenant_provider_cost_usd` is what the tenant paid its
own providers through its own keys, shown for information and never billed.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from dataclasses import asdict, dataclass, field
from decimal import Decimal

from django.apps import apps
from django.db import connection
from django.db.models import Count, Sum

from tenants.models import Plan, Tenant
from verification.models import UsageRecord

MONEY = Decimal("0.00000001")


class BadMonth(ValueError):
    """The month is not of the form YYYY-MM."""


#: Years a report (or any date a user types in the dashboard) may name.
MIN_YEAR, MAX_YEAR = 2000, 2100


def month_bounds(label: str) -> tuple[dt.datetime, dt.datetime]:
    """[start, end) of the UTC month `YYYY-MM` (years MIN_YEAR..MAX_YEAR); raises `BadMonth`."""
    try:
        start = dt.datetime.strptime(label, "%Y-%m").replace(tzinfo=dt.UTC)
    except (TypeError, ValueError) as exc:
        raise BadMonth(f"{label!r} is not a month (YYYY-MM)") from exc
    if len(label) != 7:
        raise BadMonth(f"{label!r} is not a month (YYYY-MM)")
    if not MIN_YEAR <= start.year <= MAX_YEAR:
        raise BadMonth(f"{label!r} is outside {MIN_YEAR}-01..{MAX_YEAR}-12")
    return start, (start + dt.timedelta(days=32)).replace(day=1)


def current_month() -> str:
    now = dt.datetime.now(dt.UTC)
    return f"{now.year:04d}-{now.month:02d}"


def shift_month(label: str, delta: int) -> str:
    start, _ = month_bounds(label)
    index = start.year * 12 + start.month - 1 + delta
    return f"{index // 12:04d}-{index % 12 + 1:02d}"


@dataclass
class ModeLine:
    mode: str
    verifications: int
    detector_tokens: int
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    provider_cost_usd: Decimal
    price_usd: Decimal
    tenant_provider_cost_usd: Decimal = Decimal(0)
    search_queries: int = 0
    search_cost_usd: Decimal = Decimal(0)


@dataclass
class ModelLine:
    model: str
    calls: int
    prompt_tokens: int
    completion_tokens: int
    provider_cost_usd: Decimal
    tenant_provider_cost_usd: Decimal = Decimal(0)


@dataclass
class EvaluationLine:
    """Policy evaluations on labelled datasets (quality app): billed on their own line,
    never counted as production verifications."""

    runs: int = 0
    rows: int = 0
    detector_tokens: int = 0
    price_usd: Decimal = Decimal(0)


@dataclass
class MonthlyReport:
    tenant: str
    tenant_name: str
    month: str
    plan: str | None
    plan_prices: dict = field(default_factory=dict)
    by_mode: list[ModeLine] = field(default_factory=list)
    by_model: list[ModelLine] = field(default_factory=list)
    verifications: int = 0
    detector_tokens: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    provider_cost_usd: Decimal = Decimal(0)
    price_usd: Decimal = Decimal(0)
    tenant_provider_cost_usd: Decimal = Decimal(0)
    search_queries: int = 0
    search_cost_usd: Decimal = Decimal(0)
    evaluations: EvaluationLine = field(default_factory=EvaluationLine)

    @property
    def margin_usd(self) -> Decimal:
        return self.price_usd - self.provider_cost_usd


def plan_prices(plan: Plan | None) -> dict:
    if plan is None:
        return {}
    return {
        "price_per_verification": {
            k: float(v) for k, v in (plan.price_per_verification or {}).items()
        },
        "price_per_1k_detector_tokens": float(plan.price_per_1k_detector_tokens),
        "llm_markup": float(plan.llm_markup),
    }


def _per_model(tenant_id: int, start: dt.datetime, end: dt.datetime) -> list[ModelLine]:
    # jsonb_each unnests the per-model object in the database: one row per
    # (record, model) pair, summed per model, instead of loading every record.
    table = UsageRecord._meta.db_table
    sql = f"""
        SELECT m.key,
               COALESCE(SUM((m.value->>'calls')::numeric), 0),
               COALESCE(SUM((m.value->>'prompt_tokens')::numeric), 0),
               COALESCE(SUM((m.value->>'completion_tokens')::numeric), 0),
               COALESCE(SUM((m.value->>'cost_usd')::numeric), 0),
               COALESCE(SUM((m.value->>'tenant_cost_usd')::numeric), 0)
        FROM {table} AS u, jsonb_each(u.per_model) AS m
        WHERE u.tenant_id = %s AND u.created_at >= %s AND u.created_at < %s
          AND jsonb_typeof(u.per_model) = 'object' AND jsonb_typeof(m.value) = 'object'
        GROUP BY m.key ORDER BY m.key
    """  # the table name is ours, values are parameters
    with connection.cursor() as cursor:
        cursor.execute(sql, [tenant_id, start, end])
        rows = cursor.fetchall()
    return [
        ModelLine(
            model=key,
            calls=int(calls),
            prompt_tokens=int(prompt),
            completion_tokens=int(completion),
            provider_cost_usd=Decimal(cost).quantize(MONEY),
            tenant_provider_cost_usd=Decimal(tenant_cost).quantize(MONEY),
        )
        for key, calls, prompt, completion, cost, tenant_cost in rows
    ]


def monthly_report(tenant: Tenant, month: str) -> MonthlyReport:
    """The report of `tenant` for `month` (YYYY-MM, UTC); raises `BadMonth`."""
    start, end = month_bounds(month)
    rows = UsageRecord.objects.filter(tenant=tenant, created_at__gte=start, created_at__lt=end)
    sums = {
        "verifications": Count("id"),
        "detector_tokens": Sum("detector_tokens"),
        "llm_calls": Sum("llm_calls"),
        "prompt_tokens": Sum("prompt_tokens"),
        "completion_tokens": Sum("completion_tokens"),
        "provider_cost_usd": Sum("provider_cost_usd"),
        "tenant_provider_cost_usd": Sum("tenant_provider_cost_usd"),
        "search_queries": Sum("search_queries"),
        "search_cost_usd": Sum("search_cost_usd"),
        "price_usd": Sum("price_usd"),
    }
    report = MonthlyReport(
        tenant=tenant.slug,
        tenant_name=tenant.name,
        month=month,
        plan=tenant.plan.name if tenant.plan else None,
        plan_prices=plan_prices(tenant.plan),
    )
    for r in rows.values("mode").annotate(**sums).order_by("mode"):
        report.by_mode.append(
            ModeLine(
                mode=r["mode"] or "unknown",
                verifications=r["verifications"],
                detector_tokens=r["detector_tokens"] or 0,
                llm_calls=r["llm_calls"] or 0,
                prompt_tokens=r["prompt_tokens"] or 0,
                completion_tokens=r["completion_tokens"] or 0,
                provider_cost_usd=(r["provider_cost_usd"] or Decimal(0)).quantize(MONEY),
                price_usd=(r["price_usd"] or Decimal(0)).quantize(MONEY),
                tenant_provider_cost_usd=(r["tenant_provider_cost_usd"] or Decimal(0)).quantize(
                    MONEY
                ),
                search_queries=r["search_queries"] or 0,
                search_cost_usd=(r["search_cost_usd"] or Decimal(0)).quantize(MONEY),
            )
        )
    for line in report.by_mode:
        report.verifications += line.verifications
        report.detector_tokens += line.detector_tokens
        report.llm_calls += line.llm_calls
        report.prompt_tokens += line.prompt_tokens
        report.completion_tokens += line.completion_tokens
        report.provider_cost_usd += line.provider_cost_usd
        report.price_usd += line.price_usd
        report.tenant_provider_cost_usd += line.tenant_provider_cost_usd
        report.search_queries += line.search_queries
        report.search_cost_usd += line.search_cost_usd
    report.by_model = _per_model(tenant.pk, start, end)
    report.evaluations = _evaluations(tenant, start, end)
    report.detector_tokens += report.evaluations.detector_tokens
    report.price_usd += report.evaluations.price_usd
    return report


def _evaluations(tenant: Tenant, start: dt.datetime, end: dt.datetime) -> EvaluationLine:
    # By name: the quality app builds on this one, not the other way round.
    evaluation = apps.get_model("quality", "Evaluation")
    sums = evaluation.objects.filter(
        tenant=tenant, status="completed", completed_at__gte=start, completed_at__lt=end
    ).aggregate(
        runs=Count("id"), rows=Sum("total"), tokens=Sum("detector_tokens"), price=Sum("price_usd")
    )
    return EvaluationLine(
        runs=sums["runs"],
        rows=sums["rows"] or 0,
        detector_tokens=sums["tokens"] or 0,
        price_usd=(sums["price"] or Decimal(0)).quantize(MONEY),
    )


def _money(value: Decimal) -> str:
    # `str(Decimal(0).quantize(...))` is "0E-8": the "f" format never uses an exponent.
    return format(Decimal(value).quantize(MONEY), "f")


def _plain(value):
    """`value` with every Decimal (at any depth) as a fixed-point money string."""
    if isinstance(value, Decimal):
        return _money(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def report_as_dict(report: MonthlyReport) -> dict:
    """JSON-ready; money as strings with 8 decimals so no float rounding creeps in."""
    data = _plain(asdict(report))
    data["provider_cost_usd"] = _money(report.provider_cost_usd)
    data["price_usd"] = _money(report.price_usd)
    data["tenant_provider_cost_usd"] = _money(report.tenant_provider_cost_usd)
    data["margin_usd"] = _money(report.margin_usd)
    return data


CSV_HEADER = [
    "tenant",
    "month",
    "plan",
    "section",
    "key",
    "verifications",
    "detector_tokens",
    "llm_calls",
    "prompt_tokens",
    "completion_tokens",
    "provider_cost_usd",
    "price_usd",
    "tenant_provider_cost_usd",
]


def _cell(value: str) -> str:
    # Names are partly tenant-chosen (models in their policy): never let a
    # spreadsheet read one as a formula.
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def report_as_csv(report: MonthlyReport) -> str:
    """One row per mode, one per model, and a total row; a spreadsheet sums them as-is.

    The header is the first line (spreadsheets and `pandas.read_csv` detect it there);
    tenant, month and plan are columns, so months of several files concatenate cleanly.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    who = [_cell(report.tenant), report.month, _cell(report.plan or "")]
    for m in report.by_mode:
        writer.writerow(
            [
                *who,
                "mode",
                _cell(m.mode),
                m.verifications,
                m.detector_tokens,
                m.llm_calls,
                m.prompt_tokens,
                m.completion_tokens,
                _money(m.provider_cost_usd),
                _money(m.price_usd),
                _money(m.tenant_provider_cost_usd),
            ]
        )
    for x in report.by_model:
        writer.writerow(
            [
                *who,
                "model",
                _cell(x.model),
                "",
                "",
                x.calls,
                x.prompt_tokens,
                x.completion_tokens,
                _money(x.provider_cost_usd),
                "",
                _money(x.tenant_provider_cost_usd),
            ]
        )
    if report.evaluations.runs:
        e = report.evaluations
        writer.writerow(
            [*who, "evaluation", "dataset runs", "", e.detector_tokens, 0, 0, 0,
             _money(Decimal(0)), _money(e.price_usd), _money(Decimal(0))]
        )  # fmt: skip
    writer.writerow(
        [
            *who,
            "total",
            "",
            report.verifications,
            report.detector_tokens,
            report.llm_calls,
            report.prompt_tokens,
            report.completion_tokens,
            _money(report.provider_cost_usd),
            _money(report.price_usd),
            _money(report.tenant_provider_cost_usd),
        ]
    )
    return out.getvalue()


def report_filename(report: MonthlyReport, extension: str) -> str:
    """`truthlens-<tenant>-<YYYY-MM>.<extension>`, for Content-Disposition."""
    return f"truthlens-{report.tenant}-{report.month}.{extension}"


def csv_filename(report: MonthlyReport) -> str:
    return report_filename(report, "csv")


def all_tenants_revenue(month: str) -> list[dict]:
    """Staff view: revenue vs provider cost per tenant for `month`, biggest first."""
    start, end = month_bounds(month)
    rows = (
        UsageRecord.objects.filter(created_at__gte=start, created_at__lt=end)
        .values("tenant__slug", "tenant__name", "tenant__plan__name")
        .annotate(n=Count("id"), price=Sum("price_usd"), cost=Sum("provider_cost_usd"))
        .order_by("-price")
    )
    out = []
    for r in rows:
        price, cost = r["price"] or Decimal(0), r["cost"] or Decimal(0)
        out.append(
            {
                "tenant": r["tenant__slug"],
                "name": r["tenant__name"],
                "plan": r["tenant__plan__name"] or "—",
                "verifications": r["n"],
                "price_usd": price,
                "provider_cost_usd": cost,
                "margin_usd": price - cost,
                "margin_pct": float((price - cost) / price * 100) if price else None,
            }
        )
    return out
