"""The mitigate stage: self-refine (standard) or cross-model verification (premium).

Runs on the `mitigate` queue (I/O bound: LLM calls through litellm). The
worker loads the detector once per process for re-detection after each round.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from decimal import Decimal

from django.db.models import Sum
from django.utils import timezone

from tenants.models import LLMSettings

from .actions.complete import Outcome, complete_job
from .detections import result_from_dict
from .detector_access import service_detector
from .engine.mitigation import (
    Budget,
    CascadeSettings,
    MitigationResult,
    Models,
    cascade,
    redetector,
)
from .engine.mitigation import mitigate as dispatch_mitigate
from .engine.policy import PolicyDocument, resolve
from .engine.types import DetectionResult
from .llm_access import client_for, model_config
from .models import LLMCallRecord, VerificationJob
from .policies import policy_for
from .processing import KnownTypes, detection_config, job_input, warning_for

log = logging.getLogger(__name__)


def _budget(job: VerificationJob, policy: PolicyDocument) -> Budget:
    remaining = None
    if policy.budgets.monthly_usd is not None:
        start = timezone.now().replace(day=1, hour=0, minute=0, second=0, microsecond=0)
        spent = LLMCallRecord.objects.filter(
            tenant_id=job.tenant_id, created_at__gte=start
        ).aggregate(total=Sum("cost_usd"))["total"] or Decimal(0)
        remaining = max(0.0, policy.budgets.monthly_usd - float(spent))
    return Budget(per_request_usd=policy.budgets.per_request_usd, remaining_monthly_usd=remaining)


def _run_cascade(job, policy, llm, item, initial, client, budget):
    """Confirm or clear uncertain spans with the LLM judge; returns (detection, cascade, record)."""
    band = policy.cascade
    judge = model_config(llm, band.judge_model or job.model or llm.default_model)
    threshold = job.threshold if job.threshold is not None else policy.threshold
    settings_ = CascadeSettings(low=band.low, high=band.high, threshold=threshold)
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


def mitigate(
    job: VerificationJob, policy: PolicyDocument, initial: DetectionResult, budget: Budget
) -> MitigationResult:
    """Run the job's mode against `initial` (its detection); never raises on LLM trouble.

    The engine's `dispatch.mitigate` picks the implementation and falls back
    (premium -> standard) when the policy names no verification models.
    """
    llm = LLMSettings.objects.get(tenant_id=job.tenant_id)
    item = job_input(job)
    threshold = job.threshold if job.threshold is not None else policy.threshold
    config = detection_config(policy, threshold)
    known = KnownTypes({item.query: (job.query_type, job.query_type_confidence or 0.0)})
    redetect = redetector(config, service_detector(), classifier=known)
    primary = model_config(llm, job.model or llm.default_model)
    premium = policy.premium
    models = Models(
        primary=primary,
        verifiers=tuple(model_config(llm, m) for m in premium.verification_models),
        judge=model_config(llm, premium.judge_model) if premium.judge_model else primary,
    )
    try:
        decision = None if job.decision in ("", "default") else job.decision
        max_iterations = resolve(policy, job.query_type, decision_name=decision).max_iterations
    except KeyError:  # the decision was removed from the policy since the job started
        max_iterations = None
    return dispatch_mitigate(
        job.mode,
        item,
        initial,
        policy,
        redetect,
        client_for(llm),
        models,
        budget,
        threshold=threshold,
        max_iterations=max_iterations,
    )


def run(job: VerificationJob) -> bool:
    """Cascade (if enabled), then mitigate by mode, and complete; False if the lease was lost."""
    started = time.monotonic()
    policy = policy_for(job.tenant)
    initial = result_from_dict(job.detection or {})
    cascade_record = None
    calls_before = []
    budget = _budget(job, policy)  # one budget for the cascade and the mode together
    if policy.cascade.enabled:
        llm = LLMSettings.objects.get(tenant_id=job.tenant_id)
        initial, outcome, cascade_record = _run_cascade(
            job, policy, llm, job_input(job), initial, client_for(llm), budget
        )
        calls_before = outcome.calls
    if job.mode in ("standard", "premium") and job.enabled and initial.detected:
        result = mitigate(job, policy, initial, budget)
        result.calls[:0] = calls_before
    else:
        final = job.response
        result = MitigationResult(
            mode="cascade",
            original_response=final,
            final_response=final,
            final_score=initial.score,
            converged=not initial.detected,
            stop_reason="cascade",
            calls=list(calls_before),
        )
        result.warnings.append(warning_for(job.enabled, policy, initial, initial.threshold))
    rounds = max((it.index for it in result.iterations), default=0)
    warning = " ".join(w for w in [*result.warnings, result.disclaimer or ""] if w)
    return complete_job(
        job.pk,
        job.attempts,
        Outcome(
            result=initial,
            enabled=job.enabled,
            query_type=job.query_type,
            query_type_confidence=job.query_type_confidence or 0.0,
            decision=job.decision,
            mode=job.mode,
            mode_source=job.mode_source,
            final_response=result.final_response,
            final_score=result.final_score,
            warning=warning,
            iterations=rounds,
            detect_ms=(job.latency_ms or {}).get("detect", 0),
            mitigate_ms=int((time.monotonic() - started) * 1000),
            mitigation=result,
            cost_weight=policy.cost_weight,
            cascade=cascade_record,
        ),
    )
