"""The jobs table at scale: list, detail, usage and billing reads over N generated jobs.

    python bench/jobs_scale.py --jobs 10000000 --tenants 1000 [--months 12] [--samples 300]
    python bench/jobs_scale.py --skip-generate --samples 300     # measure again
    python bench/jobs_scale.py --reset                          # remove the generated rows

Generates `--jobs` completed jobs for `--tenants` tenants (four plans, retention 3, 6, 12
and 24 months), each tenant's jobs spread over its plan's retention (at most `--months`
months back: what a table under nightly retention holds), with one usage row per job and
one span per `--span-every` jobs, all with set-based SQL (one `WITH j AS (INSERT … SELECT …
FROM generate_series …) …` statement per `--chunk` jobs) through the partitioned parents,
so rows are routed as the service's own writes are. The partitions for those months are
made first, and the expired ones dropped, as the nightly job would have.

Then, in process through the API (DRF test client: authentication, tenant scoping,
pagination and serializers included; no HTTP socket), each of `--samples` draws picks a
random tenant and times:

* list:    `GET /v1/verifications` (the first page, 50 newest jobs)
* detail:  `GET /v1/verifications/<id>` of one of its jobs (with spans and usage)
* usage:   `GET /v1/usage?month=<last full month>`
* billing: `GET /v1/billing/reports/<last full month>`

and prints p50/p95/p99 in ms against the 50 ms target for the first page and the month's
usage. Uses the database in DATABASE_URL (use a dedicated one: `--reset` truncates the
jobs tables). Targets are printed, never asserted.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import django  # noqa: E402

django.setup()

from django.db import connection, transaction  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from tenants.models import ApiKey, Plan, Tenant  # noqa: E402
from verification import partitions  # noqa: E402
from verification.models import DetectedSpan, UsageRecord, VerificationJob  # noqa: E402

PREFIX = "bench-scale-"
CLASSES = (3, 6, 12, 24)
TARGET_MS = 50.0


def _default_literal(field) -> object:
    """The value Django would write for an unset field (the tables have no DB defaults)."""
    if field.has_default():
        return field.get_db_prep_save(field.get_default(), connection)
    return None


def _plan_json() -> str:
    """A completed job's plan as the service stores it (`engine.JobPlan` without its policy)."""
    from engine import JobPlan, PolicyDocument

    return JobPlan(
        policy=PolicyDocument(),
        query_type="factual_qa",
        query_type_confidence=0.9,
        decision="default",
        enabled=True,
        threshold=0.5,
        max_iterations=3,
        mode="lightweight",
        mode_source="policy",
    ).model_dump_json(exclude={"policy"})


def _sql_json(text: str) -> str:
    """`text` as a jsonb literal inside an override (quotes doubled, `%` escaped)."""
    return "'" + text.replace("'", "''").replace("%", "%%") + "'::jsonb"


def _insert_sql(model, overrides: dict[str, str], source: str) -> tuple[str, list[object]]:
    """`INSERT INTO table (columns) SELECT <override or default param>, … FROM source`.

    An override of None leaves the column out (an identity column). Overrides are SQL
    written here (a literal `%` is `%%`), never input.
    """
    columns, values, params = [], [], []
    for field in model._meta.concrete_fields:
        if field.column in overrides and overrides[field.column] is None:
            continue
        columns.append(f'"{field.column}"')
        if field.column in overrides:
            values.append(overrides[field.column])
        else:
            values.append("%s")
            params.append(_default_literal(field))
    table = model._meta.db_table
    sql = f"INSERT INTO {table} ({', '.join(columns)}) SELECT {', '.join(values)} FROM {source}"
    return sql, params


def _tenants(n: int) -> list[Tenant]:
    plans = []
    for months in CLASSES:
        plan, _ = Plan.objects.update_or_create(
            name=f"{PREFIX}keep-{months}",
            defaults={"retention_months": months, "rate_limit": "1000000/min"},
        )
        plans.append(plan)
    existing = {t.slug: t for t in Tenant.objects.filter(slug__startswith=PREFIX)}
    new = [
        Tenant(slug=f"{PREFIX}{i:05d}", name=f"Bench {i}", plan=plans[i % len(CLASSES)])
        for i in range(n)
        if f"{PREFIX}{i:05d}" not in existing
    ]
    Tenant.objects.bulk_create(new)
    tenants = list(Tenant.objects.filter(slug__startswith=PREFIX).order_by("slug")[:n])
    for i, tenant in enumerate(tenants):
        assert tenant.plan_id == plans[i % len(CLASSES)].pk
    return tenants


def generate(args) -> None:
    tenants = _tenants(args.tenants)
    ids = [t.pk for t in tenants]
    classes = [CLASSES[i % len(CLASSES)] for i in range(len(tenants))]
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    start = now - dt.timedelta(days=round(30.44 * args.months))
    with transaction.atomic(), connection.cursor() as cursor:
        created = partitions.ensure_partitions(cursor, since=start)
        # what the nightly job would have dropped by now (empty: no job is generated there)
        dropped = partitions.drop_expired(cursor).dropped
    print(f"partitions made: {len(created)}, expired ones dropped: {len(dropped)}", flush=True)

    # Each tenant's jobs spread over its plan's retention (at most --months): what a table
    # under nightly retention holds. g picks the tenant and, by the golden ratio, the time.
    pick = f"1 + (g * 7919) %% {len(ids)}"
    tenant_ids = "ARRAY[" + ",".join(map(str, ids)) + "]"
    tenant_classes = "ARRAY[" + ",".join(map(str, classes)) + "]::smallint[]"
    windows = [min(c, args.months) * 30.44 * 86400 for c in classes]
    tenant_windows = "ARRAY[" + ",".join(f"{w:.0f}" for w in windows) + "]::float8[]"
    golden = "(g * 0.6180339887498949 - floor(g * 0.6180339887498949))"
    at = f"'{now.isoformat()}'::timestamptz - make_interval(secs => {golden} * ({tenant_windows})[{pick}])"
    job_sql, job_params = _insert_sql(
        VerificationJob,
        {
            "id": "gen_random_uuid()",
            "tenant_id": f"({tenant_ids})[{pick}]",
            "retention_months": f"({tenant_classes})[{pick}]",
            "created_at": at,
            "completed_at": f"{at} + interval '2 seconds'",
            "status": "'completed'",
            "stage": "'done'",
            "response": "'The tower is ' || g || ' m tall.'",
            # a finished job's plan (`VerificationJob.record_finished_plan`), its mode varied
            "plan": f"jsonb_set({_sql_json(_plan_json())}, '{{mode}}', "
            "to_jsonb((ARRAY['lightweight','standard','premium'])[1 + g %% 3]))",
            "verification_status": "'verified'",
            "score": "(g %% 1000) / 1000.0",
            "detected": "g %% 2 = 0",
            "verdict": "CASE WHEN g %% 2 = 0 THEN 'hallucinated' ELSE 'faithful' END",
            "detector": "'lexical'",
            "detector_tokens": "40 + g %% 200",
        },
        "generate_series(%s::bigint, %s::bigint) AS g",
    )
    usage_sql, usage_params = _insert_sql(
        UsageRecord,
        {
            "id": None,
            "job_id": "j.id",
            "tenant_id": "j.tenant_id",
            "job_created_at": "j.created_at",
            "retention_months": "j.retention_months",
            "created_at": "j.completed_at",
            "mode": "j.mode",
            "detector_tokens": "j.detector_tokens",
            "price_usd": "0.001 + (j.detector_tokens %% 7) / 1000.0",
            "provider_cost_usd": "(j.detector_tokens %% 5) / 10000.0",
            "per_model": """'{"small": {"calls": 1, "prompt_tokens": 50, "completion_tokens": 10,
                "cost_usd": 0.0001}}'::jsonb""",
        },
        "j",
    )
    span_sql, span_params = _insert_sql(
        DetectedSpan,
        {
            "id": None,
            "job_id": "j.id",
            "job_created_at": "j.created_at",
            "retention_months": "j.retention_months",
            "start": "13",
            "end": "18",
            "text": "'300 m'",
            "confidence": "0.9",
            "label": "'contradiction'",
        },
        f"j WHERE j.detector_tokens %% {args.span_every} = 0",
    )
    # one statement per chunk: the jobs, their usage and their spans
    returning = "RETURNING id, tenant_id, created_at, completed_at, retention_months, "
    returning += "plan->>'mode' AS mode, "
    returning += "detector_tokens"
    sql = f"WITH j AS ({job_sql} {returning}), u AS ({usage_sql}) {span_sql}"

    began = time.perf_counter()
    done = 0
    while done < args.jobs:
        lo, hi = done + 1, min(done + args.chunk, args.jobs)
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, [*job_params, lo, hi, *usage_params, *span_params])
        done = hi
        elapsed = time.perf_counter() - began
        print(
            f"  {done:>11,} jobs  {elapsed:7.1f} s  ({done / elapsed:,.0f} jobs/s with usage "
            "and spans)",
            flush=True,
        )
    began = time.perf_counter()
    with connection.cursor() as cursor:
        for table in partitions.TABLES:
            cursor.execute(f"ANALYZE {table}")
    print(f"generated in {elapsed:.0f} s, analyzed in {time.perf_counter() - began:.0f} s")


def _pct(values: list[float], q: float) -> float:
    return (
        statistics.quantiles(values, n=100, method="inclusive")[q - 1]
        if len(values) > 1
        else values[0]
    )


def measure(args) -> None:
    with connection.cursor() as cursor:
        counts = {}
        for table in partitions.TABLES:
            cursor.execute(f"SELECT count(*) FROM {table}")
            counts[table] = cursor.fetchone()[0]
        cursor.execute(
            "SELECT count(*) FROM unnest(%s::text[]) AS t, pg_partition_tree(t::regclass) p "
            "WHERE p.isleaf AND p.level > 0",
            [list(partitions.TABLES)],
        )
        leaf_count = cursor.fetchone()[0]
        cursor.execute("SELECT pg_size_pretty(pg_database_size(current_database()))")
        size = cursor.fetchone()[0]
    print(f"rows: {counts}; leaf partitions: {leaf_count}; database size: {size}")
    tenants = list(Tenant.objects.filter(slug__startswith=PREFIX).order_by("slug"))
    if not tenants:
        sys.exit("no bench tenants: generate first")
    rng = random.Random(7)
    sample = rng.sample(tenants, min(args.samples, len(tenants)))
    draws = [sample[i % len(sample)] for i in range(args.samples)]
    month = partitions.add_months(partitions.month_floor(dt.datetime.now(dt.UTC)), -1)
    month_text = f"{month:%Y-%m}"
    tokens: dict[int, str] = {}
    results: dict[str, list[float]] = {"list": [], "detail": [], "usage": [], "billing": []}
    sql_times: dict[str, list[float]] = {name: [] for name in results}
    checks: dict[str, int] = {}
    for n, tenant in enumerate([*draws[:10], *draws]):  # ten warm-up draws first
        if tenant.pk not in tokens:
            tokens[tenant.pk] = ApiKey.issue(tenant, name="bench")[1]
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {tokens[tenant.pk]}")
        # a job of this tenant somewhere in its history, for the detail read
        offset = rng.randrange(0, max(1, args.jobs // max(1, len(tenants))))
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT id FROM {partitions.JOBS} WHERE tenant_id = %s "
                "ORDER BY created_at DESC OFFSET %s LIMIT 1",
                [tenant.pk, offset],
            )
            row = cursor.fetchone()
        calls = {
            "list": "/v1/verifications",
            "usage": f"/v1/usage?month={month_text}",
            "billing": f"/v1/billing/reports/{month_text}",
        }
        if row:
            calls["detail"] = f"/v1/verifications/{VerificationJob(id=row[0]).public_id}"
        for name, url in calls.items():
            with CaptureQueriesContext(connection) as queries:
                began = time.perf_counter()
                response = client.get(url)
                took = (time.perf_counter() - began) * 1000
            sql_ms = sum(float(q["time"]) for q in queries.captured_queries) * 1000
            assert response.status_code == 200, (url, response.status_code, response.content[:300])
            if n >= 10:
                results[name].append(took)
                sql_times[name].append(sql_ms)
                if name == "list":
                    body = response.json()
                    rows = body.get("data", body.get("results", []))
                    checks["list rows"] = checks.get("list rows", 0) + len(rows)
                if name == "usage":
                    checks["usage verifications"] = (
                        checks.get("usage verifications", 0) + (response.json()["verifications"])
                    )
    print(f"{args.samples} draws over {len(sample)} tenants; month {month_text}; {checks}")
    print("whole request in process (auth, queries, serializers), and its SQL alone:")
    print(
        f"{'read':<8}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'SQL p50':>9}{'SQL p95':>9}"
        "   target (p95 of the request)"
    )
    for name, values in results.items():
        if not values:
            continue
        target = TARGET_MS if name in ("list", "usage") else None
        verdict = ""
        if target is not None:
            verdict = f"< {target:.0f} ms: {'met' if _pct(values, 95) < target else 'MISSED'}"
        sql = sql_times[name]
        print(
            f"{name:<8}{_pct(values, 50):9.1f}{_pct(values, 95):9.1f}{_pct(values, 99):9.1f}"
            f"{_pct(sql, 50):9.1f}{_pct(sql, 95):9.1f}   {verdict}"
        )


def reset() -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {', '.join(partitions.TABLES)}")
    ApiKey.objects.filter(tenant__slug__startswith=PREFIX).delete()
    Tenant.objects.filter(slug__startswith=PREFIX).delete()
    Plan.objects.filter(name__startswith=PREFIX).delete()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=10_000_000)
    parser.add_argument("--tenants", type=int, default=1000)
    parser.add_argument("--months", type=int, default=12)
    parser.add_argument("--span-every", type=int, default=4, help="one span per N jobs")
    parser.add_argument("--chunk", type=int, default=250_000)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--skip-generate", action="store_true")
    parser.add_argument("--reset", action="store_true", help="truncate the jobs tables, go")
    args = parser.parse_args()
    if args.reset:
        reset()
        return
    if not args.skip_generate:
        generate(args)
    measure(args)


if __name__ == "__main__":
    main()
