"""Accepting a verification request."""

from __future__ import annotations

import hashlib
import json
import uuid
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connections, router, transaction
from django.db.models.sql import InsertQuery
from django.utils import timezone

from tenants.models import DEFAULT_RETENTION_MONTHS, ApiKey, Tenant

from ..billing.meter import month_start, next_month, spend_since
from ..models import JobStage, OutboxMessage, VerificationJob
from ..queue import relay
from ..queue.enqueue import STAGE_TASKS, publish_message
from ..queue.relay import Message


class IdempotencyConflict(Exception):
    """The Idempotency-Key was used before with a different request body."""


class QuotaExceeded(Exception):
    """The tenant used its plan's monthly quota; `retry_after` seconds until next month."""

    def __init__(self, quota: int, retry_after: int):
        super().__init__(f"the monthly quota of {quota} verifications is used up")
        self.quota = quota
        self.retry_after = retry_after


class BudgetExceeded(Exception):
    """The tenant's hard monthly budget is spent; `retry_after` seconds until next month."""

    def __init__(self, budget, spent, retry_after: int):
        super().__init__(
            f"the monthly budget of ${budget} is spent (${spent:.2f} this month); "
            "raise the budget or make it soft in the dashboard's billing page"
        )
        self.retry_after = retry_after


def _check_budget(tenant: Tenant, now) -> None:
    """Refuse a new job once a hard `Tenant.monthly_budget_usd` is spent this (UTC) month.

    Runs inside the creating transaction with the tenant row locked, so concurrent
    requests cannot all squeeze past the budget's end. Only tenants with a hard budget
    pay for the lock; the job quota is a counter row (`_CREATE_SQL`).
    """
    budget = tenant.monthly_budget_usd if tenant.budget_hard else None
    if budget is None:
        return
    Tenant.objects.select_for_update().filter(pk=tenant.pk).values_list("pk").first()
    start = month_start(now)
    spent = spend_since(tenant, start)
    if spent >= budget:
        raise BudgetExceeded(budget, spent, _retry_after(now))


def _retry_after(now) -> int:
    return max(1, int((next_month(month_start(now)) - now).total_seconds()))


def _retention_months(tenant: Tenant) -> int:
    """The plan's retention class: where the job's rows go and when they are dropped."""
    plan = tenant.plan if tenant.plan_id else None
    return plan.retention_months if plan else DEFAULT_RETENTION_MONTHS


def _quota(tenant: Tenant) -> int:
    """The plan's monthly job quota, 0 for none."""
    return tenant.plan.monthly_quota if tenant.plan_id and tenant.plan else 0


#: One statement, one round trip: count the job against the tenant's monthly quota, insert
#: the job, insert its outbox message. The counter's `INSERT … ON CONFLICT DO UPDATE … WHERE`
#: locks the tenant's row for the month until commit, so concurrent requests queue there
#: and see each other's increments: the quota is exact. When the quota is used up the
#: counter CTE returns no row, the outbox row gets a NULL job_id, and the NOT NULL
#: constraint fails the whole statement: job, message and increment are all undone
#: (`_quota_refused` tells this failure from any other integrity error).
_CREATE_SQL = """
WITH counted AS (
    INSERT INTO verification_monthlyjobcount AS c (tenant_id, month, jobs)
    VALUES (%s, %s, 1)
    ON CONFLICT (tenant_id, month) DO UPDATE SET jobs = c.jobs + 1
    WHERE %s = 0 OR c.jobs < %s
    RETURNING c.jobs
), job AS (
    {insert_job} RETURNING id
)
INSERT INTO verification_outboxmessage (job_id, task, queue, created_at)
SELECT CASE WHEN EXISTS (SELECT 1 FROM counted) THEN job.id END, %s, %s, %s FROM job
RETURNING id
"""


def _quota_refused(exc: IntegrityError) -> bool:
    cause = exc.__cause__
    diag = getattr(cause, "diag", None)
    return (
        getattr(cause, "sqlstate", None) == "23502"  # not_null_violation
        and getattr(diag, "table_name", None) == OutboxMessage._meta.db_table
    )


def _insert_job_sql(job: VerificationJob) -> tuple[str, list]:
    """The `INSERT INTO verification_verificationjob … VALUES (…)` Django would send."""
    query = InsertQuery(VerificationJob)
    query.insert_values(VerificationJob._meta.local_concrete_fields, [job])
    compiler = query.get_compiler(using=router.db_for_write(VerificationJob))
    [(sql, params)] = compiler.as_sql()
    return sql, list(params)


def _store(job: VerificationJob, quota: int, route_task: str, queue: str) -> int:
    """Run `_CREATE_SQL` for `job`; the id of its outbox message."""
    insert_job, job_params = _insert_job_sql(job)
    month = month_start(job.created_at).date()
    params = [job.tenant_id, month, quota, quota, *job_params, route_task, queue, job.created_at]
    sql = _CREATE_SQL.format(insert_job=insert_job)
    connection = connections[router.db_for_write(VerificationJob)]
    # Alone, the statement is its own transaction (autocommit). Inside someone's
    # transaction a savepoint keeps a refusal from aborting it.
    context = transaction.atomic() if connection.in_atomic_block else nullcontext()
    with context, connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


@dataclass(frozen=True)
class NewVerification:
    context: list[str]
    response: str
    query: str = ""
    passage_ids: list[str] | None = None
    messages: list[dict[str, Any]] | None = None
    model: str = ""
    mode: str = "auto"
    decision: str = ""
    threshold: float | None = None
    callback_url: str = ""
    metadata: dict[str, Any] | None = None
    knowledge_base_id: uuid.UUID | None = None  # checked to be the tenant's by the caller
    search: dict[str, Any] | None = None  # checked against the policy by the caller
    #: a client waits on the answer: the job takes the interactive queues
    interactive: bool = False

    def fingerprint(self) -> str:
        """A stable hash of the request, to tell a retry from a different request
        (how long the client waits is not part of the request)."""
        fields = {k: v for k, v in self.__dict__.items() if k != "interactive"}
        raw = json.dumps(fields, sort_keys=True, default=str, ensure_ascii=False)
        return hashlib.sha256(raw.encode()).hexdigest()


def create_verification(
    tenant: Tenant,
    request: NewVerification,
    api_key: ApiKey | None = None,
    idempotency_key: str | None = None,
) -> tuple[VerificationJob, bool]:
    """Store a job and its outbox message atomically (one statement, which also counts the
    job against the plan's monthly quota), publish after commit.

    Returns `(job, created)`. With an `idempotency_key` seen before, returns
    the original job with `created=False`, or raises `IdempotencyConflict`
    when the body differs.
    """
    fingerprint = request.fingerprint()
    if idempotency_key:
        existing = _existing(tenant, idempotency_key, fingerprint)
        if existing is not None:
            return existing, False
        # The jobs table is partitioned, so no unique index can hold (tenant, key) alone:
        # requests with the same key take turns on a transaction-scoped advisory lock, and
        # the one that comes second finds the first one's job.
        with transaction.atomic(using=router.db_for_write(VerificationJob)):
            _lock_idempotency_key(tenant, idempotency_key)
            existing = _existing(tenant, idempotency_key, fingerprint)
            if existing is not None:
                return existing, False
            return _create(tenant, request, api_key, idempotency_key, fingerprint)
    return _create(tenant, request, api_key, idempotency_key, fingerprint)


def _lock_idempotency_key(tenant: Tenant, key: str) -> None:
    connection = connections[router.db_for_write(VerificationJob)]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [f"idem:{tenant.pk}:{key}"]
        )


def _create(
    tenant: Tenant,
    request: NewVerification,
    api_key: ApiKey | None,
    idempotency_key: str | None,
    fingerprint: str,
) -> tuple[VerificationJob, bool]:
    now = timezone.now()
    job = VerificationJob(
        tenant=tenant,
        api_key=api_key,
        context=request.context,
        passage_ids=request.passage_ids,
        query=request.query,
        response=request.response,
        messages=request.messages,
        model=request.model,
        requested_mode=request.mode,
        requested_decision=request.decision,
        requested_threshold=request.threshold,
        knowledge_base_id=request.knowledge_base_id,
        search=request.search or {},
        callback_url=request.callback_url,
        metadata=request.metadata or {},
        idempotency_key=idempotency_key or None,
        request_hash=fingerprint,
        interactive=request.interactive,
        created_at=now,
        enqueued_at=now,
        retention_months=_retention_months(tenant),
    )
    route = STAGE_TASKS[JobStage.DETECT]
    queue = route.queue_for(request.interactive)
    quota = _quota(tenant)
    try:
        if tenant.budget_hard and tenant.monthly_budget_usd is not None:
            with transaction.atomic():
                _check_budget(tenant, now)
                message_id = _store(job, quota, route.task, queue)
        else:
            message_id = _store(job, quota, route.task, queue)
    except IntegrityError as exc:
        if _quota_refused(exc):
            raise QuotaExceeded(quota, _retry_after(now)) from None
        raise
    job._state.adding = False
    job._state.db = router.db_for_write(VerificationJob)
    # Published once the job is committed (at once outside a transaction): by this
    # process's relay thread, off the request path, or inline; what the broker refuses
    # is left to the sweeper's relay.
    message = Message(message_id, job.pk, route.task, queue)
    if settings.TRUTHLENS["OUTBOX_PUBLISH"] == "relay":
        transaction.on_commit(lambda: relay.submit(message))
    else:
        transaction.on_commit(lambda: publish_message(*message))
    return job, True


def _existing(tenant: Tenant, key: str, fingerprint: str) -> VerificationJob | None:
    job = VerificationJob.objects.filter(tenant=tenant, idempotency_key=key).first()
    if job is not None and job.request_hash != fingerprint:
        raise IdempotencyConflict(key)
    return job
