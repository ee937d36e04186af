"""Finishing a job exactly once: result, spans, usage and webhooks in one transaction."""

from __future__ import annotations

import logging
import uuid
from dataclasses import asdict, dataclass, field

from django.db import transaction
from django.utils import timezone

from engine import DEFAULT_THRESHOLD, MODES, DetectionResult, JobPlan, MitigationResult
from observability import metrics

from .. import mode_selection
from ..billing import usage as billing
from ..models import DetectedSpan, JobStage, JobStatus, VerificationJob
from ..queue.wait import job_finished
from ..webhooks import dispatch as webhooks
from . import trajectory

log = logging.getLogger(__name__)


@dataclass
class Outcome:
    result: DetectionResult
    enabled: bool
    query_type: str
    query_type_confidence: float
    decision: str
    mode: str
    mode_source: str
    final_response: str
    warning: str
    iterations: int
    detect_ms: int
    mitigate_ms: int = 0
    final_score: float | None = None
    mitigation: MitigationResult | None = None
    cost_weight: float = 0.1
    cascade: dict | None = None
    grounding: dict | None = None
    diagnostics: list[str] = field(default_factory=list)
    #: whether the score went through a calibration fitted from the tenant's labels
    calibration: dict | None = None

    @classmethod
    def from_plan(
        cls,
        plan: JobPlan,
        result: DetectionResult,
        *,
        final_response: str,
        detect_ms: int,
        warning: str = "",
        final_score: float | None = None,
        iterations: int = 0,
        mitigate_ms: int = 0,
        mitigation: MitigationResult | None = None,
        cascade: dict | None = None,
        grounding: dict | None = None,
        diagnostics: list[str] | None = None,
    ) -> Outcome:
        """The outcome of a planned job: what was decided comes from its plan, except
        the mode when its mitigation ran another (premium falling back to standard):
        a job is recorded, rewarded and billed as the mode that ran."""
        ran = mitigation.mode if mitigation is not None and mitigation.mode in MODES else None
        return cls(
            result=result,
            enabled=plan.enabled,
            query_type=plan.query_type,
            query_type_confidence=plan.query_type_confidence,
            decision=plan.decision,
            mode=ran or plan.mode,
            mode_source=plan.mode_source,
            final_response=final_response,
            warning=warning,
            iterations=iterations,
            detect_ms=detect_ms,
            mitigate_ms=mitigate_ms,
            final_score=final_score,
            mitigation=mitigation,
            cost_weight=plan.policy.cost_weight,
            cascade=cascade,
            grounding=grounding,
            diagnostics=list(diagnostics or []),
            calibration=_calibration_note(plan),
        )


def _calibration_note(plan: JobPlan) -> dict:
    typed = plan.policy.calibration_by_query_type.get(plan.query_type)
    if typed is not None:
        return {
            "calibrated": True,
            "method": typed.method,
            "query_type": plan.query_type,
            "dataset": typed.dataset,
            "dataset_version": typed.dataset_version,
        }
    fitted = plan.policy.calibration
    if fitted is None:
        return {"calibrated": False}
    return {
        "calibrated": True,
        "method": fitted.method,
        "dataset": fitted.dataset,
        "dataset_version": fitted.dataset_version,
    }


def _ms(delta) -> int:
    return max(0, int(delta.total_seconds() * 1000))


def complete_job(job_id: uuid.UUID, attempt: int, outcome: Outcome) -> bool:
    """Store the outcome if this attempt still owns the job; False when it lost the lease.

    The conditional UPDATE on (status=running, attempts=attempt) makes a
    late finisher whose job was re-claimed a no-op, so results, usage rows
    and webhooks are written exactly once.
    """
    result = outcome.result
    now = timezone.now()
    with transaction.atomic():
        job = (
            VerificationJob.objects.select_for_update(of=("self",))
            .select_related("tenant", "tenant__plan")
            .filter(pk=job_id, status=JobStatus.RUNNING, attempts=attempt)
            .first()
        )
        if job is None:
            log.info("job %s attempt %s lost its lease; result discarded", job_id, attempt)
            return False
        job.status = JobStatus.COMPLETED
        job.verification_status = result.status
        job.reason = result.reason
        job.score = result.score
        job.model_score = result.model_score
        job.threshold = result.threshold
        job.detected = result.detected
        job.verdict = result.verdict or ""
        job.risk_level = result.risk_level or ""
        job.coverage = asdict(result.coverage)
        job.citations = asdict(result.citations) if result.citations else None
        job.cascade = outcome.cascade
        if outcome.grounding is not None:
            job.grounding = outcome.grounding
        job.detector = result.detector
        job.detector_tokens = result.detector_tokens
        job.query_type = outcome.query_type
        job.query_type_confidence = outcome.query_type_confidence
        job.decision = outcome.decision
        job.mode = outcome.mode
        job.mode_source = outcome.mode_source
        job.enabled = outcome.enabled
        job.final_response = outcome.final_response
        job.final_score = outcome.final_score if outcome.final_score is not None else result.score
        job.stage = JobStage.DONE
        job.warning = outcome.warning
        job.diagnostics = outcome.diagnostics
        job.score_calibration = outcome.calibration
        job.iterations = outcome.iterations
        job.completed_at = now
        job.lease_expires_at = None
        job.latency_ms = {
            "queue": _ms(job.started_at - job.created_at) if job.started_at else 0,
            "detect": outcome.detect_ms or (job.latency_ms or {}).get("detect", 0),
            "mitigate": outcome.mitigate_ms,
            "total": _ms(now - job.created_at),
        }
        DetectedSpan.objects.bulk_create(
            [
                DetectedSpan(
                    job=job,
                    start=s.start,
                    end=s.end,
                    text=s.text,
                    confidence=s.confidence,
                    label=s.label,
                    reason=s.reason,
                    evidence=s.evidence.text if s.evidence else "",
                    evidence_passage=s.evidence.passage_index if s.evidence else None,
                    evidence_start=s.evidence.start if s.evidence else None,
                    evidence_end=s.evidence.end if s.evidence else None,
                )
                for s in result.spans
            ]
        )
        cost = 0.0
        if outcome.mitigation is not None:
            cost = trajectory.store(job, outcome.mitigation)
        billing.record_usage(job, outcome.mitigation)
        _reward_mode(job, outcome, cost)
        job.save()  # after the reward, so the row is written once (the job row is locked)
        deliveries = webhooks.create_deliveries(job, "verification.completed")
        transaction.on_commit(lambda: _after_commit(job, deliveries))
    return True


def _reward_mode(job: VerificationJob, outcome: Outcome, cost_usd: float) -> None:
    """Feed the bandit (docs/policies.md "Mode selection (Thompson sampling)") and set `job.bandit_reward` (the caller saves the job).

    Verified means the final answer scored under the threshold.
    """
    if job.verification_status != "verified" or not job.mode:
        return

    final = job.final_score if job.final_score is not None else 1.0
    verified = final < (job.threshold if job.threshold is not None else DEFAULT_THRESHOLD)
    job.bandit_reward = mode_selection.record_outcome(job, verified, cost_usd, outcome.cost_weight)


def fail_job(job_id: uuid.UUID, attempt: int | None, code: str, message: str) -> bool:
    """Mark a job failed (final) and notify, unless another attempt already finished it."""
    now = timezone.now()
    with transaction.atomic():
        qs = VerificationJob.objects.select_for_update(of=("self",)).filter(
            pk=job_id, status__in=[JobStatus.RUNNING, JobStatus.QUEUED]
        )
        if attempt is not None:
            qs = qs.filter(attempts=attempt)
        job = qs.select_related("tenant").first()
        if job is None:
            return False
        job.status = JobStatus.FAILED
        job.error_code = code
        job.error_message = message
        job.completed_at = now
        job.lease_expires_at = None
        job.latency_ms = {**(job.latency_ms or {}), "total": _ms(now - job.created_at)}
        job.save()
        deliveries = webhooks.create_deliveries(job, "verification.failed")
        transaction.on_commit(lambda: _after_commit(job, deliveries))
    return True


def _after_commit(job: VerificationJob, deliveries: list[int]) -> None:
    job_finished(job.public_id)
    webhooks.enqueue(deliveries)

    metrics.observe_job(job)
