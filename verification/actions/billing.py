"""Usage records and our price for a finished job (DESIGN §7)."""

from __future__ import annotations

from decimal import Decimal

from ..models import UsageRecord, VerificationJob


def price_for(job: VerificationJob, provider_cost: Decimal) -> Decimal:
    plan = job.tenant.plan
    if plan is None:
        return Decimal(0)
    per_mode = Decimal(str((plan.price_per_verification or {}).get(job.mode, 0)))
    tokens = Decimal(job.detector_tokens) / Decimal(1000) * plan.price_per_1k_detector_tokens
    return per_mode + tokens + provider_cost * plan.llm_markup


def record_usage(job: VerificationJob) -> UsageRecord:
    """Write the job's usage row; idempotent because the row is one-to-one with the job."""
    provider_cost = Decimal(0)  # no LLM calls in lightweight mode
    record, _ = UsageRecord.objects.update_or_create(
        job=job,
        defaults={
            "tenant": job.tenant,
            "mode": job.mode,
            "detector_tokens": job.detector_tokens,
            "provider_cost_usd": provider_cost,
            "price_usd": price_for(job, provider_cost),
        },
    )
    return record
