"""Claiming jobs for a worker: conditional UPDATEs that exactly one worker wins."""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from ..models import JobStage, JobStatus, VerificationJob


def lease() -> timedelta:
    """How long a claim holds a job (detect or mitigate stage) before others may take it."""
    return timedelta(seconds=settings.TRUTHLENS["JOB_LEASE_SECONDS"])


def claim(job_id: uuid.UUID | str) -> VerificationJob | None:
    """Take a queued job, or a running one whose lease expired; None when not ours to take."""
    now = timezone.now()
    claimable = Q(status=JobStatus.QUEUED) | Q(
        status=JobStatus.RUNNING, stage=JobStage.DETECT, lease_expires_at__lt=now
    )
    touched = (
        VerificationJob.objects.filter(pk=job_id)
        .filter(claimable)
        .update(
            status=JobStatus.RUNNING,
            lease_expires_at=now + lease(),
            started_at=now,
            attempts=F("attempts") + 1,
        )
    )
    if touched != 1:
        return None
    return VerificationJob.objects.select_related("tenant", "tenant__policy").get(pk=job_id)


def claim_more(limit: int, exclude: uuid.UUID | None = None) -> list[VerificationJob]:
    """Take up to `limit` other queued jobs to fill a detection micro-batch.

    Their own broker messages later find them taken and return quietly.
    """
    if limit <= 0:
        return []
    now = timezone.now()
    with transaction.atomic():
        ids = list(
            VerificationJob.objects.select_for_update(skip_locked=True)
            .filter(status=JobStatus.QUEUED)
            .exclude(pk=exclude)
            .order_by("created_at")
            .values_list("id", flat=True)[:limit]
        )
        if not ids:
            return []
        VerificationJob.objects.filter(id__in=ids, status=JobStatus.QUEUED).update(
            status=JobStatus.RUNNING,
            lease_expires_at=now + lease(),
            started_at=now,
            attempts=F("attempts") + 1,
        )
    return list(
        VerificationJob.objects.select_related("tenant", "tenant__policy").filter(id__in=ids)
    )
