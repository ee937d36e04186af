"""The mitigate stage: the cascade for uncertain spans, then the job's LLM mode.

Runs on the `mitigate` queue (I/O bound: LLM calls through litellm). It reads
the plan the detect stage stored on the job, so it never resolves the policy
again. The worker loads the detector once per process for re-detection after
each round.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from decimal import Decimal

from django.db.models import Sum
from django.utils import timezone

from engine import (
    Budget,
    CascadeSettings,
    DetectionInput,
    DetectionResult,
    JobPlan,
    KnownTypes,
    MitigationResult,
    Models,
    cascade,
    mitigate,
    redetector,
)

from ..actions.complete import Outcome, complete_job
from ..models import LLMCallRecord, VerificationJob
from ..tenant_config import (
    client_for,
    default_model,
    model_config,
    policy_for,
    service_detector,
)
from .codec import result_from_dict
from .detect import job_input

log = logging.getLogger(__name__)


def stored_plan(job: VerificationJob) -> JobPlan:
    """The plan stored at the hand-off. A job handed off by a release that stored only the
    plan's keys (no policy) gets one from them and the current policy's defaults; it is not
    resolved again."""
    stored = job.job_plan
    if stored is not None:
        return stored
    policy = policy_for(job.tenant)
    return JobPlan(
        policy=policy,
        query_type=job.query_type,
        query_type_confidence=job.query_type_confidence or 0.0,
        decision=job.decision,
        enabled=job.enabled,
        threshold=job.threshold if job.threshold is not None else policy.threshold,
        max_iterations=policy.standard.max_iterations,
        mode=job.mode,
        mode_source=job.mode_source,
        model=job.model,
    )


def _budget(job: VerificationJob, plan: JobPlan) -> Budget:
    budgets = plan.policy.budgets
    remaining = None
    if budgets.monthly_usd is not None:
        start = timezone.now().replace(day=1, hour=0, minute=0, second=0, microsecond=0)
        spent = LLMCallRecord.objects.filter(
            tenant_id=job.tenant_id, created_at__gte=start
        ).aggregate(total=Sum("cost_usd"))["total"] or Decimal(0)
        remaining = max(0.0, budgets.monthly_usd - float(spent))
    return Budget(per_request_usd=budgets.per_request_usd, remaining_monthly_usd=remaining)


def _run_cascade(plan, tenant_id, item, initial, client, budget):
    """Confirm or clear uncertain spans with the LLM judge; returns (detection, cascade, record)."""
    band = plan.policy.cascade
    judge = model_config(tenant_id, band.judge_model or plan.model or default_model(tenant_id))
    settings_ = CascadeSettings(low=band.low, high=band.high, threshold=plan.threshold)
    outcome = cascade(item, initial, client, judge, settings_, budget)
    decided = replace(initial, spans=outcome.spans, score=outcome.score, detected=outcome.detected)
    record = {
        "decisions": [
            {
                "start": d.span.start,
                "end": d.span.end,
                "text": d.span.text,
                "confidence": d.span.confidence,
                "tier": d.tier,
                "hallucinated": d.hallucinated,
                "cost_usd": round(d.cost_usd, 8),
            }
            for d in outcome.decisions
        ],
        "cost_usd": round(outcome.cost_usd, 8),
        "warnings": outcome.warnings,
    }
    return decided, outcome, record


def _mitigate(
    plan: JobPlan,
    tenant_id: int,
    item: DetectionInput,
    initial: DetectionResult,
    budget: Budget,
) -> MitigationResult:
    """Run the plan's mode against `initial` (its detection); never raises on LLM trouble."""
    known = KnownTypes({item.query: (plan.query_type, plan.query_type_confidence)})
    redetect = redetector(plan.config, service_detector(), classifier=known)
    primary = model_config(tenant_id, plan.model or default_model(tenant_id))
    premium = plan.policy.premium
    models = Models(
        primary=primary,
        verifiers=tuple(model_config(tenant_id, m) for m in premium.verification_models),
        judge=model_config(tenant_id, premium.judge_model) if premium.judge_model else primary,
    )
    return mitigate(
        plan.mode,
        item,
        initial,
        plan.policy,
        redetect,
        client_for(tenant_id),
        models,
        budget,
        threshold=plan.threshold,
        max_iterations=plan.max_iterations,
    )


def run(job: VerificationJob) -> bool:
    """Cascade (if enabled), then mitigate by mode, and complete; False if the lease was lost."""
    started = time.monotonic()
    plan = stored_plan(job)
    item = job_input(job)
    initial = result_from_dict(job.detection or {})
    cascade_record = None
    calls_before = []
    budget = _budget(job, plan)  # one budget for the cascade and the mode together
    if plan.policy.cascade.enabled:
        initial, outcome, cascade_record = _run_cascade(
            plan, job.tenant_id, item, initial, client_for(job.tenant_id), budget
        )
        calls_before = outcome.calls
    if plan.should_mitigate(initial):
        result = _mitigate(plan, job.tenant_id, item, initial, budget)
        result.calls[:0] = calls_before
    else:
        result = MitigationResult(
            mode="cascade",
            original_response=job.response,
            final_response=job.response,
            final_score=initial.score,
            converged=not initial.detected,
            stop_reason="cascade",
            calls=list(calls_before),
        )
        result.warnings.append(plan.warning(initial))
    rounds = max((it.index for it in result.iterations), default=0)
    # The end user reads the policy's words; what went wrong inside is for operators.
    warning = " ".join(w for w in [*result.warnings, result.disclaimer or ""] if w)
    diagnostics = [*(cascade_record or {}).get("warnings", []), *result.diagnostics]
    return complete_job(
        job.pk,
        job.attempts,
        Outcome(
            plan=plan,
            result=initial,
            final_response=result.final_response,
            final_score=result.final_score,
            warning=warning,
            iterations=rounds,
            detect_ms=(job.latency_ms or {}).get("detect", 0),
            mitigate_ms=int((time.monotonic() - started) * 1000),
            mitigation=result,
            cascade=cascade_record,
            diagnostics=tuple(diagnostics),
        ),
    )
