"""Usage records and our price for a finished job (docs/architecture.md "Billing and metrics").

Who pays a provider decides what is billed. A call made with the tenant's own
credentials (its provider's key or its own server, `LLMCallRecord.own_key`; its
own web search key) is paid by the tenant to that provider: it is reported as the
tenant's provider cost and never billed. Only what the service itself pays for is
passed through, with the plan's markup. Failed web searches cost nothing.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from engine import BASE_MODE, MODES, MitigationResult

from ..models import LLMCallRecord, UsageRecord, VerificationJob

#: The billing line of a verification whose query type the policy skips: nothing was
#: checked, so it is billed at the plan's "skipped" price (0 unless the plan sets one).
SKIPPED = "skipped"
#: The line of a job whose fixing mode never ran (nothing to fix): it was detected and
#: returned as is, which is what the detection-only mode does.
DETECTION_ONLY = BASE_MODE


@dataclass(frozen=True)
class Costs:
    """A job's provider costs, split by who pays the provider."""

    service_llm: Decimal = Decimal(0)
    tenant_llm: Decimal = Decimal(0)
    service_search: Decimal = Decimal(0)
    tenant_search: Decimal = Decimal(0)

    @property
    def service(self) -> Decimal:
        return self.service_llm + self.service_search

    @property
    def tenant(self) -> Decimal:
        return self.tenant_llm + self.tenant_search


def fixing_mode_ran(mitigation: MitigationResult | None) -> bool:
    """Did a mode rewrite (or repair) the answer? The cascade alone only judges spans,
    and a pass-through ("none": the answer passed) changed nothing."""
    return mitigation is not None and mitigation.mode not in ("cascade", "none")


def billed_as(job: VerificationJob, mitigation: MitigationResult | None = None) -> str:
    """The billing line a job belongs to: the mode that ran, or "skipped".

    A job whose mode needs an LLM but had nothing to fix (no mitigation ran, so no
    LLM call was made for the mode) ran as detection only and is billed as such.
    """
    if job.verification_status == SKIPPED:
        return SKIPPED
    spec = MODES.get(job.mode)
    if spec is not None and spec.needs_llm and not fixing_mode_ran(mitigation):
        return DETECTION_ONLY
    return job.mode


def search_usage(job: VerificationJob) -> tuple[int, Decimal, bool]:
    """(web search queries answered, their cost, made with the tenant's own key) made
    to ground the job's answer."""
    web = (job.grounding or {}).get("web") or {}
    # Rows from before `own_key` was recorded: the tenant's settings always carry its key.
    own = bool(web.get("own_key", True))
    return int(web.get("queries", 0)), Decimal(str(web.get("cost_usd", "0"))), own


def price_for(
    job: VerificationJob,
    costs: Costs | Decimal = Decimal(0),
    billed_mode: str | None = None,
) -> Decimal:
    """Plan price: per verification by mode (or the "skipped" price) + per 1k detector
    tokens + what the service paid LLM providers × markup + what it paid search
    providers × their markup. What the tenant paid its own providers is not billed.
    (A bare Decimal is the service's LLM cost; `billed_mode` defaults to the job's mode.)"""
    plan = job.tenant.plan
    if plan is None:
        return Decimal(0)
    if not isinstance(costs, Costs):
        costs = Costs(service_llm=costs)
    mode = billed_mode or (SKIPPED if job.verification_status == SKIPPED else job.mode)
    per_mode = Decimal(str((plan.price_per_verification or {}).get(mode, 0)))
    tokens = Decimal(job.detector_tokens) / Decimal(1000) * plan.price_per_1k_detector_tokens
    search = costs.service_search * Decimal(str(plan.search_price_markup))
    return per_mode + tokens + costs.service_llm * plan.llm_markup + search


def _per_model(calls: list[LLMCallRecord]) -> dict[str, dict[str, float]]:
    per_model: dict[str, dict[str, float]] = defaultdict(
        lambda: {
            "calls": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "cost_usd": 0.0,  # paid by the service
            "tenant_cost_usd": 0.0,  # paid by the tenant, with its own key
        }
    )
    for call in calls:
        entry = per_model[call.model]
        entry["calls"] += 1
        entry["prompt_tokens"] += call.prompt_tokens
        entry["completion_tokens"] += call.completion_tokens
        entry["tenant_cost_usd" if call.own_key else "cost_usd"] += float(call.cost_usd)
    return dict(per_model)


def record_usage(job: VerificationJob, mitigation: MitigationResult | None = None) -> UsageRecord:
    """Write the job's usage row from its LLM calls; one-to-one with the job, so idempotent."""
    calls = list(LLMCallRecord.objects.filter(job=job))
    search_queries, search_cost, search_own = search_usage(job)
    costs = Costs(
        service_llm=sum((c.cost_usd for c in calls if not c.own_key), Decimal(0)),
        tenant_llm=sum((c.cost_usd for c in calls if c.own_key), Decimal(0)),
        service_search=Decimal(0) if search_own else search_cost,
        tenant_search=search_cost if search_own else Decimal(0),
    )
    mode = billed_as(job, mitigation)
    record, _ = UsageRecord.objects.update_or_create(
        job=job,
        defaults={
            "tenant": job.tenant,
            "mode": mode,
            "detector_tokens": job.detector_tokens,
            "llm_calls": len(calls),
            "prompt_tokens": sum(c.prompt_tokens for c in calls),
            "completion_tokens": sum(c.completion_tokens for c in calls),
            "per_model": _per_model(calls),
            "provider_cost_usd": costs.service,
            "tenant_provider_cost_usd": costs.tenant,
            "price_usd": price_for(job, costs, mode),
            "search_queries": search_queries,
            "search_cost_usd": search_cost,
        },
    )
    return record
