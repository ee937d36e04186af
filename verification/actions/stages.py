"""Moving a job from detection to mitigation, and claiming it there."""

from __future__ import annotations

import uuid
from typing import Any

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from ..models import JobStatus, OutboxMessage, VerificationJob
from ..queueing import TASK_MITIGATE, publish_outbox
from .claim import lease


def hand_to_mitigation(
    job_id: uuid.UUID, attempt: int, fields: dict[str, Any], detection: dict[str, Any]
) -> bool:
    """Store the detection and queue the job for the mitigate workers (one transaction)."""
    now = timezone.now()
    latency_detect = fields.pop("latency_detect", 0)
    with transaction.atomic():
        job = (
            VerificationJob.objects.select_for_update(of=("self",))
            .filter(pk=job_id, status=JobStatus.RUNNING, stage="detect", attempts=attempt)
            .first()
        )
        if job is None:
            return False
        for name, value in fields.items():
            setattr(job, name, value)
        job.detection = detection
        job.stage = "mitigate"
        job.lease_expires_at = now + lease()
        job.latency_ms = {"detect": latency_detect}
        job.save()
        message = OutboxMessage.objects.create(job=job, task=TASK_MITIGATE, queue="mitigate")
        transaction.on_commit(lambda: publish_outbox(message.pk))
    return True


def claim_mitigation(job_id: uuid.UUID | str) -> VerificationJob | None:
    """Take a job waiting for mitigation, or one whose mitigation lease expired."""
    now = timezone.now()
    claimable = Q(stage="mitigate") | Q(stage="mitigating", lease_expires_at__lt=now)
    touched = (
        VerificationJob.objects.filter(pk=job_id, status=JobStatus.RUNNING)
        .filter(claimable)
        .update(stage="mitigating", lease_expires_at=now + lease(), attempts=F("attempts") + 1)
    )
    if touched != 1:
        return None
    return VerificationJob.objects.select_related("tenant", "tenant__policy").get(pk=job_id)
