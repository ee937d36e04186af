"""The sweeper: the second line of defence against lost messages and dead workers."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from ..models import JobStage, JobStatus, OutboxMessage, VerificationJob
from ..queue.enqueue import enqueue_stage, publish_outbox
from .claim import lease
from .complete import fail_job

log = logging.getLogger(__name__)


def relay_outbox(limit: int = 500) -> int:
    """Publish outbox messages that the after-commit hook did not get out."""
    cutoff = timezone.now() - timedelta(seconds=settings.TRUTHLENS["OUTBOX_RELAY_AFTER_SECONDS"])
    ids = list(
        OutboxMessage.objects.filter(published_at__isnull=True, created_at__lte=cutoff)
        .order_by("created_at")
        .values_list("pk", flat=True)[:limit]
    )
    return sum(1 for pk in ids if publish_outbox(pk))


def _requeue(job_id, reason: str, stage: str = JobStage.DETECT) -> None:
    # a job lost while mitigating waits for the mitigate queue again
    enqueue_stage(job_id, JobStage.DETECT if stage == JobStage.DETECT else JobStage.MITIGATE)
    log.warning("re-enqueued job %s: %s", job_id, reason)


def sweep_stuck_jobs(limit: int = 500) -> dict[str, int]:
    """Re-enqueue running jobs whose lease expired and queued jobs nobody picked up.

    A re-enqueued message that races a still-living worker is harmless: the
    claim is a conditional UPDATE and completion checks the attempt number.
    """
    conf = settings.TRUTHLENS
    now = timezone.now()
    counts = {"expired": 0, "stale_queued": 0, "failed": 0}
    expired = VerificationJob.objects.filter(
        status=JobStatus.RUNNING, lease_expires_at__lt=now
    ).values_list("pk", "attempts", "stage")[:limit]
    for job_id, attempts, stage in expired:
        if attempts >= conf["MAX_JOB_ATTEMPTS"]:
            if fail_job(
                job_id, attempts, "too_many_attempts", f"gave up after {attempts} attempts"
            ):
                counts["failed"] += 1
            continue
        _requeue(job_id, "lease expired", stage)
        counts["expired"] += 1
    stale_before = now - lease()
    stale = VerificationJob.objects.filter(
        status=JobStatus.QUEUED, enqueued_at__lt=stale_before
    ).values_list("pk", flat=True)[:limit]
    for job_id in stale:
        VerificationJob.objects.filter(pk=job_id, status=JobStatus.QUEUED).update(enqueued_at=now)
        _requeue(job_id, "queued past the lease")
        counts["stale_queued"] += 1
    return counts
