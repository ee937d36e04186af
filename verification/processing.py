"""Running detection for claimed jobs: policy → engine → mode → storage.

This is the glue between Django rows and the pure engine; the Celery task
only claims jobs and hands them here. Lightweight jobs, jobs with nothing
to fix and no-LLM repairs finish in the detect stage; standard and premium
jobs with an LLM configured move to the `mitigate` queue.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from dataclasses import dataclass, field

from django.conf import settings

from tenants.models import LLMSettings

from . import metrics
from .actions.complete import Outcome, complete_job, fail_job
from .actions.stages import hand_to_mitigation
from .detections import result_to_dict
from .detector_access import service_detector
from .engine import DetectionConfig, DetectionInput, DetectionResult, verify_batch
from .engine.mitigation.lightweight import warning_text
from .engine.mitigation.redetect import redetector
from .engine.mitigation.repair import repair
from .engine.policy import PolicyDocument, Resolved, resolve
from .engine.query_types import classify_query, default_classifier
from .logcontext import bind
from .models import VerificationJob
from .modes import choose_mode
from .policies import policy_for

log = logging.getLogger(__name__)


@dataclass
class Plan:
    """Everything decided about a job before detection runs."""

    job: VerificationJob
    attempt: int
    item: DetectionInput
    policy: PolicyDocument
    resolved: Resolved
    query_type: str
    query_type_confidence: float
    mode: str
    mode_source: str
    timings: dict[str, int] = field(default_factory=dict)

    @property
    def config(self) -> DetectionConfig:
        return detection_config(self.policy, self.resolved.threshold)


class KnownTypes:
    """Hands the pipeline query types that were already computed for policy resolution."""

    def __init__(self, types: dict[str | None, tuple[str, float]]):
        self.types = types

    def classify_batch(self, queries: list[str | None]) -> list[tuple[str, float]]:
        return [self.types.get(q) or classify_query(q) for q in queries]


def detection_config(policy: PolicyDocument, threshold: float) -> DetectionConfig:
    return DetectionConfig(
        threshold=threshold,
        token_threshold=policy.token_threshold,
        aggregation=policy.aggregation,
        skip_query_types=tuple(policy.skip_query_types),
    )


def job_input(job: VerificationJob) -> DetectionInput:
    return DetectionInput.build(
        context=list(job.context or []),
        response=job.response,
        query=job.query or None,
        passage_ids=job.passage_ids,
    )


def plan_job(job: VerificationJob, query_type: str, confidence: float) -> Plan:
    policy = policy_for(job.tenant)
    resolved = resolve(
        policy,
        query_type=query_type,
        domain=str((job.metadata or {}).get("domain", "")),
        text=job.query or "",
        decision_name=job.requested_decision or None,
    )
    if job.requested_threshold is not None:
        resolved = Resolved(**{**resolved.__dict__, "threshold": job.requested_threshold})
    choice = choose_mode(
        job.requested_mode, policy, resolved.mode, job.tenant, query_type, key=str(job.pk)
    )
    return Plan(
        job=job,
        attempt=job.attempts,
        item=job_input(job),
        policy=policy,
        resolved=resolved,
        query_type=query_type,
        query_type_confidence=confidence,
        mode=choice.mode,
        mode_source=choice.source,
    )


def process_jobs(jobs: list[VerificationJob]) -> None:
    """Detect every claimed job (one detector call per policy config) and route it on."""
    plans: list[Plan] = []
    # One encoder pass for the whole batch's queries (they pick the policy decision).
    types = default_classifier().classify_batch([job.query or "" for job in jobs])
    for job, (query_type, confidence) in zip(jobs, types, strict=True):
        try:
            plans.append(plan_job(job, query_type, confidence))
        except Exception as exc:  # a bad stored policy must fail this job, not the batch
            log.exception("planning failed for job %s", job.pk)
            fail_job(job.pk, job.attempts, "policy_error", str(exc)[:500])
    detector = service_detector()
    groups: dict[DetectionConfig, list[Plan]] = defaultdict(list)
    for plan in plans:
        groups[plan.config].append(plan)
    metrics.DETECT_BATCH.observe(len(plans))
    # One query for the batch, not one per job: which tenants can mitigate with an LLM.
    with_llm = set(
        LLMSettings.objects.filter(tenant_id__in={p.job.tenant_id for p in plans}).values_list(
            "tenant_id", flat=True
        )
    )
    for config, members in groups.items():
        _maybe_inject_fault(members)
        started = time.monotonic()
        known = KnownTypes({p.item.query: (p.query_type, p.query_type_confidence) for p in members})
        results = verify_batch([p.item for p in members], config, detector, classifier=known)
        detect_ms = int((time.monotonic() - started) * 1000)
        for plan, result in zip(members, results, strict=True):
            plan.timings["detect"] = detect_ms
            with bind(job_id=plan.job.public_id, tenant_id=str(plan.job.tenant_id)):
                route(plan, result, has_llm=plan.job.tenant_id in with_llm)
                log.info(
                    "detection finished",
                    extra={"status": result.status, "score": result.score, "ms": detect_ms},
                )


def _needs_fixing(plan: Plan, result: DetectionResult) -> bool:
    return plan.resolved.enabled and result.status == "verified" and bool(result.detected)


def _uncertain(plan: Plan, result: DetectionResult) -> bool:
    band = plan.policy.cascade
    return band.enabled and any(band.low <= s.confidence < band.high for s in result.spans)


def route(plan: Plan, result: DetectionResult, has_llm: bool) -> None:
    """Finish now (lightweight, nothing to fix, no-LLM repair) or hand over to mitigation.

    `has_llm` says whether the job's tenant has LLM settings. The mitigate stage
    also runs the budgeted cascade when the policy enables it and some span is in
    the uncertainty band: it needs an LLM, so not on the GPU queue.
    """
    if (
        has_llm
        and plan.resolved.enabled
        and result.status == "verified"
        and _uncertain(plan, result)
    ):
        hand_to_mitigation(plan.job.pk, plan.attempt, plan_fields(plan), result_to_dict(result))
        return
    if plan.mode in ("standard", "premium") and _needs_fixing(plan, result):
        if has_llm:
            hand_to_mitigation(plan.job.pk, plan.attempt, plan_fields(plan), result_to_dict(result))
            return
        if plan.mode == "standard":
            _finish_with_repair(plan, result)
            return
    _finish(plan, result)


def plan_fields(plan: Plan) -> dict:
    return {
        "query_type": plan.query_type,
        "query_type_confidence": plan.query_type_confidence,
        "decision": plan.resolved.decision,
        "mode": plan.mode,
        "mode_source": plan.mode_source,
        "enabled": plan.resolved.enabled,
        "threshold": plan.resolved.threshold,
        "latency_detect": plan.timings.get("detect", 0),
    }


def lightweight_warning(plan: Plan, result: DetectionResult) -> str:
    return warning_for(plan.resolved.enabled, plan.policy, result, plan.resolved.threshold)


def warning_for(
    enabled: bool, policy: PolicyDocument, result: DetectionResult, threshold: float
) -> str:
    if not enabled:
        return ""
    if result.status == "unverifiable":
        return f"This answer could not be verified: {result.reason}"
    if result.status != "verified" or not result.detected:
        return ""
    return warning_text(policy.warning_template, result, threshold)


def _finish(plan: Plan, result: DetectionResult) -> None:
    complete_job(
        plan.job.pk,
        plan.attempt,
        Outcome(
            result=result,
            enabled=plan.resolved.enabled,
            query_type=plan.query_type,
            query_type_confidence=plan.query_type_confidence,
            decision=plan.resolved.decision,
            mode=plan.mode,
            mode_source=plan.mode_source,
            final_response=plan.job.response,
            final_score=result.score,
            warning=lightweight_warning(plan, result),
            iterations=0,
            detect_ms=plan.timings.get("detect", 0),
            cost_weight=plan.policy.cost_weight,
        ),
    )


def _finish_with_repair(plan: Plan, result: DetectionResult) -> None:
    """Standard mode without an LLM: edit the answer from its spans, then re-score it."""
    started = time.monotonic()
    detector = service_detector()
    known = KnownTypes({plan.item.query: (plan.query_type, plan.query_type_confidence)})
    repaired = repair(plan.item, result, redetect=redetector(plan.config, detector, known))
    complete_job(
        plan.job.pk,
        plan.attempt,
        Outcome(
            result=result,
            enabled=True,
            query_type=plan.query_type,
            query_type_confidence=plan.query_type_confidence,
            decision=plan.resolved.decision,
            mode=plan.mode,
            mode_source=plan.mode_source,
            final_response=repaired.final_response,
            final_score=repaired.final_score,
            warning=" ".join(w for w in repaired.warnings if w),
            iterations=1 if repaired.changes else 0,
            detect_ms=plan.timings.get("detect", 0),
            mitigate_ms=int((time.monotonic() - started) * 1000),
            mitigation=repaired,
            cost_weight=plan.policy.cost_weight,
        ),
    )


def _maybe_inject_fault(members: list[Plan]) -> None:
    """Sleep in a job's first attempt when configured, so tests can kill a worker mid-task."""
    delay = settings.TRUTHLENS["FAULT_DETECT_SLEEP_SECONDS"]
    if delay and any(p.attempt == 1 for p in members):
        time.sleep(delay)
