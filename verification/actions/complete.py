"""Finishing a job exactly once: result, spans, usage and webhooks in one transaction."""

from __future__ import annotations

import logging
import uuid
from dataclasses import asdict, dataclass
from typing import Any

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


@dataclass(frozen=True)
class Outcome:
    """How a planned job ended: its plan, the detection of the answer it was sent, and what
    mitigation made of it. The stage that finishes the job builds it; `complete_job` writes it
    to the row through `recorded_plan` and `result_fields`, the one place a result becomes columns."""

    plan: JobPlan
    result: DetectionResult  # of the customer's answer (iteration 0)
    final_response: str
    warning: str = ""  # for the end user: the policy's text
    final_score: float | None = None  # of `final_response`; the answer's own score if None
    iterations: int = 0
    detect_ms: int = 0
    mitigate_ms: int = 0
    mitigation: MitigationResult | None = None
    cascade: dict | None = None  # which tier decided each uncertain span
    grounding: dict | None = None  # the evidence of an answer without a context
    diagnostics: tuple[str, ...] = ()  # for operators: fallbacks, failed LLM calls

    @property
    def mode(self) -> str:
        """The mode that ran: the plan's, unless its mitigation ran another (premium falling
        back to standard); a job is recorded, rewarded and billed as the mode that ran."""
        ran = self.mitigation.mode if self.mitigation is not None else None
        return ran if ran in MODES else self.plan.mode

    @property
    def cost_weight(self) -> float:
        return self.plan.policy.cost_weight

    def recorded_plan(self) -> JobPlan:
        """The plan as the job records it: with the mode that ran."""
        if self.plan.mode == self.mode:
            return self.plan
        return self.plan.model_copy(update={"mode": self.mode})

    def result_fields(self) -> dict[str, Any]:
        """The job's result columns (`VerificationJob`, "result")."""
        r = self.result
        return {
            "verification_status": r.status,
            "reason": r.reason,
            "score": r.score,
            "model_score": r.model_score,
            "final_score": self.final_score if self.final_score is not None else r.score,
            "threshold": r.threshold,
            "detected": r.detected,
            "verdict": r.verdict or "",
            "risk_level": r.risk_level or "",
            "score_calibration": _calibration_note(self.plan),
            "final_response": self.final_response,
            "iterations": self.iterations,
            "warning": self.warning,
            "diagnostics": list(self.diagnostics),
            "coverage": asdict(r.coverage),
            "citations": asdict(r.citations) if r.citations else None,
            "cascade": self.cascade,
            "detector": r.detector,
            "detector_tokens": r.detector_tokens,
        }


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
        job.stage = JobStage.DONE
        job.record_finished_plan(outcome.recorded_plan())
        for name, value in outcome.result_fields().items():
            setattr(job, name, value)
        if outcome.grounding is not None:
            job.grounding = outcome.grounding
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
