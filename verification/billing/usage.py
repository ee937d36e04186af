"""Usage records and our price for a finished job (DESIGN §7)."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

from ..models import LLMCallRecord, UsageRecord, VerificationJob

#: The billing line of a verification whose query type the policy skips: nothing was
#: checked, so it is billed at the plan's "skipped" price (0 unless the plan sets one).
SKIPPED = "skipped"


def billed_as(job: VerificationJob) -> str:
    """The billing line a job belongs to: its mode, or "skipped"."""
    return SKIPPED if job.verification_status == SKIPPED else job.mode


def search_usage(job: VerificationJob) -> tuple[int, Decimal]:
    """(web search queries, their provider cost) made to ground the job's answer."""
    web = (job.grounding or {}).get("web") or {}
    return int(web.get("queries", 0)), Decimal(str(web.get("cost_usd", "0")))


def price_for(
    job: VerificationJob, provider_cost: Decimal, search_cost: Decimal = Decimal(0)
) -> Decimal:
    """Plan price: per verification by mode (or the "skipped" price) + per 1k detector
    tokens + LLM pass-through × markup + web search pass-through × its markup."""
    plan = job.tenant.plan
    if plan is None:
        return Decimal(0)
    per_mode = Decimal(str((plan.price_per_verification or {}).get(billed_as(job), 0)))
    tokens = Decimal(job.detector_tokens) / Decimal(1000) * plan.price_per_1k_detector_tokens
    search = search_cost * Decimal(str(plan.search_price_markup))
    return per_mode + tokens + provider_cost * plan.llm_markup + search


def record_usage(job: VerificationJob) -> UsageRecord:
    """Write the job's usage row from its LLM calls; one-to-one with the job, so idempotent."""
    calls = list(LLMCallRecord.objects.filter(job=job))
    per_model: dict[str, dict[str, float]] = defaultdict(
        lambda: {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0}
    )
    for call in calls:
        entry = per_model[call.model]
        entry["calls"] += 1
        entry["prompt_tokens"] += call.prompt_tokens
        entry["completion_tokens"] += call.completion_tokens
        entry["cost_usd"] += float(call.cost_usd)
    provider_cost = sum((c.cost_usd for c in calls), Decimal(0))
    search_queries, search_cost = search_usage(job)
    record, _ = UsageRecord.objects.update_or_create(
        job=job,
        defaults={
            "tenant": job.tenant,
            "mode": billed_as(job),
            "detector_tokens": job.detector_tokens,
            "llm_calls": len(calls),
            "prompt_tokens": sum(c.prompt_tokens for c in calls),
            "completion_tokens": sum(c.completion_tokens for c in calls),
            "per_model": dict(per_model),
            "provider_cost_usd": provider_cost,
            "price_usd": price_for(job, provider_cost, search_cost),
            "search_queries": search_queries,
            "search_cost_usd": search_cost,
        },
    )
    return record
