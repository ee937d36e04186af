"""Moving a job from detection to mitigation, and claiming it there."""

from __future__ import annotations

import uuid
from typing import Any

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from engine import JobPlan

from ..models import JobStage, JobStatus, VerificationJob
from ..queue.enqueue import enqueue_stage
from .claim import lease


def hand_to_mitigation(
    job_id: uuid.UUID,
    attempt: int,
    plan: JobPlan,
    detection: dict[str, Any],
    detect_ms: int,
    grounding: dict[str, Any] | None = None,
) -> bool:
    """Store the plan and the detection and queue the job for the mitigate workers
    (one transaction); False if this attempt no longer owns the job."""
    now = timezone.now()
    with transaction.atomic():
        job = (
            VerificationJob.objects.select_for_update(of=("self",))
            .filter(pk=job_id, status=JobStatus.RUNNING, stage=JobStage.DETECT, attempts=attempt)
            .first()
        )
        if job is None:
            return False
        job.job_plan = plan  # its query type, decision, mode … are what the API shows meanwhile
        job.threshold = plan.threshold
        job.detection = detection
        job.grounding = grounding  # the evidence of an answer without context
        job.stage = JobStage.MITIGATE
        job.lease_expires_at = now + lease()
        job.latency_ms = {"detect": detect_ms}
        job.save()
        enqueue_stage(job.pk, JobStage.MITIGATE, job.interactive)
    return True


def claim_mitigation(job_id: uuid.UUID | str) -> VerificationJob | None:
    """Take a job waiting for mitigation, or one whose mitigation lease expired."""
    now = timezone.now()
    claimable = Q(stage=JobStage.MITIGATE) | Q(stage=JobStage.MITIGATING, lease_expires_at__lt=now)
    touched = (
        VerificationJob.objects.filter(pk=job_id, status=JobStatus.RUNNING)
        .filter(claimable)
        .update(
            stage=JobStage.MITIGATING, lease_expires_at=now + lease(), attempts=F("attempts") + 1
        )
    )
    if touched != 1:
        return None
    return VerificationJob.objects.select_related("tenant", "tenant__policy").get(pk=job_id)
