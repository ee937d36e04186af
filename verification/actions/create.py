"""Accepting a verification request."""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from tenants.models import ApiKey, Tenant

from ..billing.meter import month_start, next_month, spend_since
from ..models import JobStage, VerificationJob
from ..stages.enqueue import enqueue_stage


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


def _check_quota(tenant: Tenant) -> None:
    """Refuse a new job once the tenant's jobs this (UTC) month reach `Plan.monthly_quota`,
    or its billed spend reaches a hard `Tenant.monthly_budget_usd`.

    Runs inside the creating transaction with the tenant row locked, so concurrent
    requests cannot all squeeze past the last free slot.
    """
    quota = tenant.plan.monthly_quota if tenant.plan_id and tenant.plan else 0
    budget = tenant.monthly_budget_usd if tenant.budget_hard else None
    if not quota and budget is None:
        return
    Tenant.objects.select_for_update().filter(pk=tenant.pk).values_list("pk").first()
    now = timezone.now()
    start = month_start(now)
    retry_after = max(1, int((next_month(start) - now).total_seconds()))
    if quota:
        used = VerificationJob.objects.filter(tenant=tenant, created_at__gte=start).count()
        if used >= quota:
            raise QuotaExceeded(quota, retry_after)
    if budget is not None:
        spent = spend_since(tenant, start)
        if spent >= budget:
            raise BudgetExceeded(budget, spent, retry_after)


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
    """Store a job and its outbox message atomically, publish after commit.

    Returns `(job, created)`. With an `idempotency_key` seen before, returns
    the original job with `created=False`, or raises `IdempotencyConflict`
    when the body differs.
    """
    fingerprint = request.fingerprint()
    if idempotency_key:
        existing = _existing(tenant, idempotency_key, fingerprint)
        if existing is not None:
            return existing, False
    try:
        with transaction.atomic():
            _check_quota(tenant)
            job = VerificationJob.objects.create(
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
                enqueued_at=timezone.now(),
            )
            enqueue_stage(job.pk, JobStage.DETECT, request.interactive)
    except IntegrityError:
        # A concurrent request with the same Idempotency-Key won the race.
        if not idempotency_key:
            raise
        existing = _existing(tenant, idempotency_key, fingerprint)
        if existing is None:
            raise
        return existing, False
    return job, True


def _existing(tenant: Tenant, key: str, fingerprint: str) -> VerificationJob | None:
    job = VerificationJob.objects.filter(tenant=tenant, idempotency_key=key).first()
    if job is not None and job.request_hash != fingerprint:
        raise IdempotencyConflict(key)
    return job
