"""Jobs, spans and usage partitioned by retention class and month (verification/partitions.py)."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from tenants.models import Plan
from verification import partitions
from verification.actions.create import NewVerification, create_verification
from verification.models import DetectedSpan, UsageRecord, VerificationJob
from verification.partitions import JOBS, SPANS, USAGE, add_months, leaf_name, month_floor
from workers.tasks.maintenance import partition_maintenance

TODAY = timezone.now().date()
THIS_MONTH = month_floor(TODAY)


def _where(table: str, pk) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT tableoid::regclass::text FROM {table} WHERE id = %s", [pk])
        rows = cursor.fetchall()
    assert len(rows) == 1, rows
    return rows[0][0]


def _exists(name: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [name])
        return cursor.fetchone()[0]


def _plan(months: int) -> Plan:
    return Plan.objects.create(
        name=f"keep-{months}-{uuid.uuid4().hex[:6]}", retention_months=months
    )


def _job(tenant, created_at=None, retention_months=12) -> VerificationJob:
    return VerificationJob.objects.create(
        tenant=tenant,
        response="The tower is 300 m tall.",
        created_at=created_at or timezone.now(),
        retention_months=retention_months,
    )


def _with_span_and_usage(job: VerificationJob) -> tuple[DetectedSpan, UsageRecord]:
    [span] = DetectedSpan.objects.bulk_create(
        [DetectedSpan(job=job, start=0, end=3, text="The", confidence=0.9, label="x")]
    )
    # usage is partitioned by its own time: written when the job finished, here at once
    usage = UsageRecord.objects.create(
        job=job, tenant=job.tenant, mode="lightweight", created_at=job.created_at
    )
    return span, usage


@pytest.mark.django_db
def test_a_new_job_lands_in_its_plans_class_and_this_month_with_its_spans_and_usage(tenant_a):
    tenant = tenant_a.tenant
    tenant.plan = _plan(3)
    tenant.save()
    job, created = create_verification(
        tenant, NewVerification(context=["The tower is 330 m tall."], response="It is 300 m.")
    )
    assert created
    assert job.retention_months == 3
    assert _where(JOBS, job.pk) == leaf_name(JOBS, 3, THIS_MONTH)
    span, usage = _with_span_and_usage(job)
    assert (span.job_created_at, span.retention_months) == (job.created_at, 3)
    assert _where(SPANS, span.pk) == leaf_name(SPANS, 3, THIS_MONTH)
    assert _where(USAGE, usage.pk) == leaf_name(USAGE, 3, THIS_MONTH)
    # Django still knows a job by its id alone, and reads its rows back through the parent
    fetched = VerificationJob.objects.get(pk=job.pk)
    assert list(fetched.spans.all()) == [span]
    assert fetched.usage == usage


@pytest.mark.django_db
def test_a_tenant_without_a_plan_keeps_jobs_for_the_default_class(tenant_a):
    assert tenant_a.tenant.plan_id is None
    job, _ = create_verification(tenant_a.tenant, NewVerification(context=["a"], response="b"))
    assert job.retention_months == 12
    assert _where(JOBS, job.pk) == leaf_name(JOBS, 12, THIS_MONTH)


@pytest.mark.django_db
def test_the_next_months_partitions_exist_ahead_of_time():
    for table in (JOBS, SPANS, USAGE):
        for months in partitions.CLASSES:
            for ahead in range(partitions.MONTHS_AHEAD + 1):
                assert _exists(leaf_name(table, months, add_months(THIS_MONTH, ahead)))
        assert _exists(partitions.default_name(table))


@pytest.mark.django_db
def test_a_row_with_no_partition_goes_to_default_and_moves_when_its_partition_is_made(tenant_a):
    far = dt.datetime(2031, 5, 17, 12, tzinfo=dt.UTC)
    job = _job(tenant_a.tenant, created_at=far)
    span, usage = _with_span_and_usage(job)
    assert _where(JOBS, job.pk) == partitions.default_name(JOBS)
    with connection.cursor() as cursor:
        created = partitions.ensure_partitions(cursor, today=dt.date(2031, 4, 2), ahead=1)
    assert leaf_name(JOBS, 12, dt.date(2031, 5, 1)) in created
    assert _where(JOBS, job.pk) == leaf_name(JOBS, 12, dt.date(2031, 5, 1))
    assert _where(SPANS, span.pk) == leaf_name(SPANS, 12, dt.date(2031, 5, 1))
    assert _where(USAGE, usage.pk) == leaf_name(USAGE, 12, dt.date(2031, 5, 1))
    assert VerificationJob.objects.get(pk=job.pk).usage == usage


def test_a_partition_expires_a_whole_class_length_after_its_month_ends():
    january = dt.date(2026, 1, 1)
    assert partitions.expires_on(1, january) == dt.date(2026, 3, 1)
    assert partitions.expires_on(12, january) == dt.date(2027, 2, 1)
    # never the current month, whatever the class
    for months in partitions.CLASSES:
        assert partitions.expires_on(months, THIS_MONTH) > add_months(THIS_MONTH, 1)


@pytest.mark.django_db
def test_retention_drops_only_expired_partitions_and_never_a_current_one(tenant_a):
    tenant = tenant_a.tenant
    three_ago = add_months(THIS_MONTH, -3)
    last_month = add_months(THIS_MONTH, -1)
    with connection.cursor() as cursor:
        partitions.ensure_partitions(cursor, since=three_ago)

    def at(month: dt.date) -> dt.datetime:
        return dt.datetime(month.year, month.month, 10, tzinfo=dt.UTC)

    expired = _job(tenant, at(three_ago), retention_months=1)
    expired_span, expired_usage = _with_span_and_usage(expired)
    kept_longer_class = _job(tenant, at(three_ago), retention_months=12)
    kept_recent = _job(tenant, at(last_month), retention_months=1)
    kept_current = _job(tenant, timezone.now(), retention_months=1)
    _with_span_and_usage(kept_current)

    with connection.cursor() as cursor:
        result = partitions.drop_expired(cursor, today=TODAY)

    gone = {leaf_name(table, 1, three_ago) for table in (JOBS, SPANS, USAGE)}
    assert gone <= set(result.dropped)
    assert not any(_exists(name) for name in gone)
    # every dropped partition had expired; the current and next months' all stay
    for name in result.dropped:
        leaf = partitions._LEAF.match(name)
        month = dt.date(int(leaf["year"]), int(leaf["month"]), 1)
        assert partitions.expires_on(int(leaf["months"]), month) <= THIS_MONTH
    for table in (JOBS, SPANS, USAGE):
        for months in partitions.CLASSES:
            assert _exists(leaf_name(table, months, THIS_MONTH))
    ids = set(VerificationJob.objects.values_list("id", flat=True))
    assert expired.pk not in ids
    assert {kept_longer_class.pk, kept_recent.pk, kept_current.pk} <= ids
    assert not DetectedSpan.objects.filter(pk=expired_span.pk).exists()
    assert not UsageRecord.objects.filter(pk=expired_usage.pk).exists()
    assert UsageRecord.objects.filter(job=kept_current).exists()


@pytest.mark.django_db
def test_archiving_detaches_expired_partitions_with_their_rows(tenant_a):
    old = add_months(THIS_MONTH, -2)
    with connection.cursor() as cursor:
        partitions.ensure_partitions(cursor, since=old)
    job = _job(tenant_a.tenant, dt.datetime(old.year, old.month, 3, tzinfo=dt.UTC), 1)
    with connection.cursor() as cursor:
        result = partitions.drop_expired(cursor, today=TODAY, archive=True)
        assert leaf_name(JOBS, 1, old) in result.archived
        assert not result.dropped
        cursor.execute(f"SELECT id FROM archive.{leaf_name(JOBS, 1, old)}")
        assert cursor.fetchall() == [(job.pk,)]
    assert not VerificationJob.objects.filter(pk=job.pk).exists()


@pytest.mark.django_db
def test_the_nightly_task_makes_partitions_and_reports_the_default_partitions(tenant_a):
    _job(tenant_a.tenant, dt.datetime(2040, 1, 1, tzinfo=dt.UTC))
    result = partition_maintenance()
    assert result["default_rows"][JOBS] == 1
    assert result["dropped"] == [] or all("_r" in name for name in result["dropped"])


@pytest.mark.django_db
def test_deleting_a_job_still_deletes_its_rows_without_database_foreign_keys(tenant_a):
    job = _job(tenant_a.tenant)
    span, usage = _with_span_and_usage(job)
    job.delete()
    assert not DetectedSpan.objects.filter(pk=span.pk).exists()
    assert not UsageRecord.objects.filter(pk=usage.pk).exists()


@pytest.mark.django_db
def test_one_idempotency_key_makes_one_job(tenant_a):
    request = NewVerification(context=["a"], response="b")
    first, created = create_verification(tenant_a.tenant, request, idempotency_key="k-1")
    again, created_again = create_verification(tenant_a.tenant, request, idempotency_key="k-1")
    assert created
    assert not created_again
    assert again.pk == first.pk
    assert VerificationJob.objects.filter(idempotency_key="k-1").count() == 1


# --- the migration, both ways ------------------------------------------------------------

BEFORE = [("verification", "0016_monthly_job_count")]


def _migrate(targets) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


def _latest():
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()


@pytest.mark.django_db(transaction=True)
def test_the_migration_partitions_existing_rows_and_back(tenant_a):
    tenant = tenant_a.tenant
    tenant.plan = _plan(6)
    tenant.save()
    try:
        _migrate(BEFORE)
        with connection.cursor() as cursor:
            assert not partitions.is_partitioned(cursor, JOBS)
        apps = MigrationExecutor(connection).loader.project_state(BEFORE).apps
        old = dt.datetime(2025, 2, 14, tzinfo=dt.UTC)
        job_id = uuid.uuid4()
        apps.get_model("verification", "VerificationJob").objects.create(
            id=job_id, tenant_id=tenant.pk, response="r", created_at=old
        )
        usage_id = (
            apps.get_model("verification", "UsageRecord")
            .objects.create(job_id=job_id, tenant_id=tenant.pk, mode="lightweight", created_at=old)
            .pk
        )
        _migrate(_latest())
        with connection.cursor() as cursor:
            assert partitions.is_partitioned(cursor, JOBS)
        assert _where(JOBS, job_id) == leaf_name(JOBS, 6, dt.date(2025, 2, 1))
        assert _where(USAGE, usage_id) == leaf_name(USAGE, 6, dt.date(2025, 2, 1))
        usage = UsageRecord.objects.get(pk=usage_id)
        assert (usage.job_created_at, usage.retention_months) == (old, 6)
        # the identity goes on after the copied rows
        job = VerificationJob.objects.get(pk=job_id)
        assert UsageRecord.objects.create(job=_job(tenant), tenant=tenant, mode="x").pk > usage_id
        assert job.usage.pk == usage_id

        _migrate(BEFORE)  # and back: plain tables, same rows
        with connection.cursor() as cursor:
            assert not partitions.is_partitioned(cursor, JOBS)
            cursor.execute("SELECT job_id FROM verification_usagerecord WHERE id = %s", [usage_id])
            assert cursor.fetchone() == (job_id,)
            cursor.execute("SELECT count(*) FROM verification_verificationjob")
            assert cursor.fetchone() == (2,)
    finally:
        _migrate(_latest())


@pytest.mark.django_db
def test_a_month_with_every_class_expired_goes_whole(tenant_a):
    old = add_months(THIS_MONTH, -30)
    with connection.cursor() as cursor:
        partitions.ensure_partitions(cursor, since=old)
        assert _exists(partitions.month_name(JOBS, old))
        result = partitions.drop_expired(cursor, today=TODAY)
    for table in (JOBS, SPANS, USAGE):
        assert partitions.month_name(table, old) in result.dropped_months
        assert not _exists(partitions.month_name(table, old))
        assert _exists(partitions.month_name(table, THIS_MONTH))


@pytest.mark.django_db
def test_a_months_query_reads_only_that_months_partitions():
    nxt = add_months(THIS_MONTH, 1)
    with connection.cursor() as cursor:
        cursor.execute(
            f"EXPLAIN SELECT count(*) FROM {JOBS} WHERE created_at >= %s AND created_at < %s",
            [THIS_MONTH, nxt],
        )
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert leaf_name(JOBS, 12, THIS_MONTH) in plan
    assert leaf_name(JOBS, 12, nxt) not in plan
    assert partitions.default_name(JOBS) not in plan


def _ids(page: dict) -> list[str]:
    return [row["id"] for row in page["results"]]


@pytest.mark.django_db
def test_the_first_page_asks_recent_months_first_and_misses_no_older_job(
    tenant_a, tenant_b, client_a
):
    tenant = tenant_a.tenant
    old = _job(tenant, created_at=timezone.now() - dt.timedelta(days=200))
    _job(tenant_b.tenant)  # another tenant's job shows on no page
    newer = [_job(tenant, created_at=timezone.now() - dt.timedelta(minutes=m)) for m in (2, 1)]
    # fewer recent jobs than a page: the old one is on the first page too
    assert _ids(client_a.get("/v1/verifications").json()) == [
        newer[1].public_id,
        newer[0].public_id,
        old.public_id,
    ]
    # a full page of recent jobs: the old one follows on the next page
    first = client_a.get("/v1/verifications?limit=2").json()
    assert _ids(first) == [newer[1].public_id, newer[0].public_id]
    assert _ids(client_a.get(first["next"]).json()) == [old.public_id]


@pytest.mark.django_db
def test_dropping_a_month_takes_its_jobs_rows_in_other_tables_with_it(tenant_a):
    from verification.models import (
        Feedback,
        LLMCallRecord,
        MitigationStep,
        OutboxMessage,
        WebhookAttempt,
        WebhookDelivery,
    )

    tenant = tenant_a.tenant
    three_ago = add_months(THIS_MONTH, -3)
    with connection.cursor() as cursor:
        partitions.ensure_partitions(cursor, since=three_ago)
    at = dt.datetime(three_ago.year, three_ago.month, 10, tzinfo=dt.UTC)
    expired, kept = _job(tenant, at, retention_months=1), _job(tenant, at, retention_months=12)

    def rows_of(job):
        delivery = WebhookDelivery.objects.create(
            tenant=tenant, job=job, url="http://127.0.0.1:9/hook",
            event_id=uuid.uuid4().hex, event_type="verification.completed", payload={},
        )  # fmt: skip
        return [
            delivery,
            WebhookAttempt.objects.create(delivery=delivery, number=1),
            MitigationStep.objects.create(job=job, index=0, kind="refine"),
            LLMCallRecord.objects.create(job=job, tenant=tenant, model="m", role="refine"),
            OutboxMessage.objects.create(job=job, task="t", queue="detect"),
            Feedback.objects.create(job=job, tenant=tenant, outcome="correct"),
        ]

    gone, stay = rows_of(expired), rows_of(kept)
    # when
    with connection.cursor() as cursor:
        result = partitions.drop_expired(cursor, today=TODAY)
    # then: nothing of the dropped jobs is left anywhere; the kept job keeps everything
    assert leaf_name(JOBS, 1, three_ago) in result.dropped
    assert result.dependent_rows == len(gone)
    for row in gone:
        assert not type(row).objects.filter(pk=row.pk).exists(), type(row).__name__
    for row in stay:
        assert type(row).objects.filter(pk=row.pk).exists(), type(row).__name__


# --- usage by its own month (migration 0018) ---------------------------------------------

BEFORE_OWN_TIME = [("verification", "0017_partitioned_jobs")]


def _key(table: str) -> tuple[str, list[str]]:
    with connection.cursor() as cursor:
        column = partitions.partition_column(cursor, table)
        cursor.execute(
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = to_regclass(%s) AND contype IN ('p', 'u') ORDER BY conname",
            [table],
        )
        return column, [row[0] for row in cursor.fetchall()]


@pytest.mark.django_db(transaction=True)
def test_usage_moves_to_its_own_month_and_back(tenant_a):
    tenant = tenant_a.tenant
    tenant.plan = _plan(6)
    tenant.save()
    # a job created on the last evening of January, finished (its usage written) in February
    january, february = dt.date(2025, 1, 1), dt.date(2025, 2, 1)
    created = dt.datetime(2025, 1, 31, 23, 59, tzinfo=dt.UTC)
    finished = dt.datetime(2025, 2, 1, 0, 1, tzinfo=dt.UTC)
    try:
        _migrate(BEFORE_OWN_TIME)
        assert _key(USAGE)[0] == "job_created_at"
        with connection.cursor() as cursor:
            partitions.ensure_partitions(cursor, since=january)
        job = _job(tenant, created, retention_months=6)
        usage = UsageRecord.objects.create(
            job=job, tenant=tenant, mode="lightweight", created_at=finished
        )
        assert _where(USAGE, usage.pk) == leaf_name(USAGE, 6, january)  # the job's month
        with connection.cursor() as cursor:  # what retention dropped (expired long ago)
            cursor.execute(f"DROP TABLE {leaf_name(USAGE, 1, january)}")

        _migrate(_latest())
        assert _key(USAGE) == (
            "created_at",
            [
                "UNIQUE (job_id, retention_months, created_at)",
                "PRIMARY KEY (id, retention_months, created_at)",
            ],
        )
        assert _where(USAGE, usage.pk) == leaf_name(USAGE, 6, february)  # its own month
        assert _where(JOBS, job.pk) == leaf_name(JOBS, 6, january)
        assert VerificationJob.objects.get(pk=job.pk).usage == usage
        assert UsageRecord.objects.get(pk=usage.pk).job_created_at == created
        # every partition was made again but the one retention had dropped; the identity
        # goes on
        for months in partitions.CLASSES:
            assert _exists(leaf_name(USAGE, months, january)) == (months != 1)
            assert _exists(leaf_name(USAGE, months, add_months(THIS_MONTH, 2)))
        later = UsageRecord.objects.create(job=_job(tenant, None, 6), tenant=tenant, mode="x")
        assert later.pk > usage.pk
        assert _where(USAGE, later.pk) == leaf_name(USAGE, 6, THIS_MONTH)

        _migrate(BEFORE_OWN_TIME)  # and back: by the job's month, the same rows
        assert _key(USAGE) == (
            "job_created_at",
            [
                "UNIQUE (job_id, retention_months, job_created_at)",
                "PRIMARY KEY (id, retention_months, job_created_at)",
            ],
        )
        assert _where(USAGE, usage.pk) == leaf_name(USAGE, 6, january)
        assert UsageRecord.objects.count() == 2
    finally:
        _migrate(_latest())


@pytest.mark.django_db
def test_a_months_usage_reads_only_that_months_usage_partitions(tenant_a):
    with connection.cursor() as cursor:
        cursor.execute(
            f"EXPLAIN SELECT count(*) FROM {USAGE} "
            "WHERE tenant_id = %s AND created_at >= %s AND created_at < %s",
            [tenant_a.tenant.pk, THIS_MONTH, add_months(THIS_MONTH, 1)],
        )
        plan = "\n".join(row[0] for row in cursor.fetchall())
    for months in partitions.CLASSES:
        assert leaf_name(USAGE, months, THIS_MONTH) in plan
    for other in (add_months(THIS_MONTH, -1), add_months(THIS_MONTH, 1)):
        assert partitions.month_name(USAGE, other) not in plan
    assert partitions.default_name(USAGE) not in plan


@pytest.mark.django_db
def test_a_job_finished_after_its_month_ended_is_billed_in_the_month_it_finished(tenant_a):
    from verification.billing.report import monthly_report
    from verification.billing.usage import record_usage

    last_month = add_months(THIS_MONTH, -1)
    with connection.cursor() as cursor:
        partitions.ensure_partitions(cursor, since=last_month)
    created = dt.datetime(THIS_MONTH.year, THIS_MONTH.month, 1, tzinfo=dt.UTC) - dt.timedelta(
        minutes=1
    )
    job = _job(tenant_a.tenant, created)
    job.status, job.mode, job.detector_tokens = "completed", "lightweight", 40
    job.save()
    # completion writes the usage row now; a second completion updates it, never a second row
    first = record_usage(job)
    job.detector_tokens = 41
    again = record_usage(job)
    assert again.pk == first.pk
    assert UsageRecord.objects.filter(job=job).count() == 1
    assert _where(USAGE, first.pk) == leaf_name(USAGE, 12, THIS_MONTH)
    assert _where(JOBS, job.pk) == leaf_name(JOBS, 12, last_month)
    this = monthly_report(tenant_a.tenant, f"{THIS_MONTH:%Y-%m}")
    before = monthly_report(tenant_a.tenant, f"{last_month:%Y-%m}")
    assert (this.verifications, this.detector_tokens) == (1, 41)
    assert before.verifications == 0


def _finished(tenant, at: dt.datetime, status: str = "completed") -> VerificationJob:
    job = _job(tenant, at)
    job.status, job.metadata = status, {"at": at.isoformat()}
    job.completed_at = None if status == "queued" else at + dt.timedelta(seconds=2)
    job.save()
    return job


@pytest.mark.django_db
def test_the_list_shows_each_job_as_its_detail_does_in_as_many_queries_for_any_page(
    tenant_a, client_a
):
    from django.test.utils import CaptureQueriesContext

    tenant = tenant_a.tenant
    now = timezone.now()
    with connection.cursor() as cursor:
        partitions.ensure_partitions(cursor, since=add_months(THIS_MONTH, -5))
    statuses = ["completed", "completed", "failed", "queued"]
    jobs = [_finished(tenant, now - dt.timedelta(minutes=i), s) for i, s in enumerate(statuses)]
    _with_span_and_usage(jobs[0])  # usage written when the job finished
    # a usage row written by hand, months before its job: outside the months read first
    UsageRecord.objects.create(
        job=jobs[1], tenant=tenant, mode="premium", detector_tokens=7,
        created_at=now - dt.timedelta(days=120),
    )  # fmt: skip
    client_a.get("/v1/verifications")  # the key is read once, then cached

    def listed() -> tuple[list[dict], int]:
        with CaptureQueriesContext(connection) as queries:
            rows = client_a.get("/v1/verifications").json()["results"]
        return rows, len(queries)

    rows, count = listed()
    assert rows == [client_a.get(f"/v1/verifications/{job.public_id}").json() for job in jobs]
    assert rows[0]["spans"][0]["text"] == "The"
    assert rows[1]["usage"]["detector_tokens"] == 7
    # more jobs with spans and usage on the page: no query per job (no column read lazily)
    more = [_finished(tenant, now - dt.timedelta(seconds=10 + i)) for i in range(5)]
    for job in more:
        _with_span_and_usage(job)
    rows, count_more = listed()
    assert len(rows) == len(jobs) + len(more)
    assert count_more == count
