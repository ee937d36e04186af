"""Claiming jobs for a worker: conditional UPDATEs that exactly one worker wins."""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, Window
from django.db.models.functions import RowNumber
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


def claim_more(
    limit: int, exclude: uuid.UUID | None = None, interactive_only: bool = False
) -> list[VerificationJob]:
    """Take up to `limit` other queued jobs to fill a detection micro-batch.

    Interactive jobs come first; then each tenant's oldest job before any tenant's
    second (a fair share: one tenant's flood of batch jobs cannot fill every batch
    while another tenant's job waits). A batch started for an interactive job takes
    only interactive jobs, so a waiting client's batch stays small. Their own broker
    messages later find them taken and return quietly.
    """
    if limit <= 0:
        return []
    queued = VerificationJob.objects.filter(status=JobStatus.QUEUED).exclude(pk=exclude)
    if interactive_only:
        queued = queued.filter(interactive=True)
    # Postgres refuses FOR UPDATE with window functions: rank first, lock the ranked ids after.
    turn = Window(RowNumber(), partition_by=[F("tenant_id")], order_by=F("created_at").asc())
    ranked = list(
        queued.annotate(turn=turn)
        .order_by("-interactive", "turn", "created_at")
        .values_list("id", flat=True)[: limit * 4]
    )
    if not ranked:
        return []
    now = timezone.now()
    with transaction.atomic():
        free = set(
            VerificationJob.objects.select_for_update(skip_locked=True)
            .filter(id__in=ranked, status=JobStatus.QUEUED)
            .values_list("id", flat=True)
        )
        ids = [pk for pk in ranked if pk in free][:limit]
        if not ids:
            return []
        VerificationJob.objects.filter(id__in=ids, status=JobStatus.QUEUED).update(
            status=JobStatus.RUNNING,
            lease_expires_at=now + lease(),
            started_at=now,
            attempts=F("attempts") + 1,
        )
    jobs = VerificationJob.objects.select_related("tenant", "tenant__policy").in_bulk(ids)
    return [jobs[pk] for pk in ids]
