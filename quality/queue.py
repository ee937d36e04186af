"""What enters the review queue, and the queue as a reviewer walks it.

Fed by signals on the verification models, since `verification` must not import this app:
a job saved as completed and verified is queued when its verdict is `uncertain` or its score
lies within `NEAR_THRESHOLD` of its threshold, or when the random sample draws it; a job that
an end user flags through the API (feedback `hallucinated`) is queued as flagged.
"""

from __future__ import annotations

import hashlib

from django.db.models import Count, Exists, OuterRef, Q

from .models import DEFAULT_SAMPLE_RATE, Label, QualitySettings, ReviewItem

NEAR_THRESHOLD = 0.1  # |score - threshold| below this counts as uncertain


def settings_for(tenant) -> QualitySettings:
    found, _ = QualitySettings.objects.get_or_create(tenant=tenant)
    return found


def sampled(job_id, rate: float) -> bool:
    """A stable draw from the job's id: the same job is always in or out, whichever process
    asks, and the share drawn is `rate` on average (an unbiased sample of traffic)."""
    digest = hashlib.sha256(job_id.bytes if hasattr(job_id, "bytes") else str(job_id).encode())
    return int.from_bytes(digest.digest()[:4], "big") / 2**32 < rate


def uncertain(job) -> bool:
    if job.verdict == "uncertain":
        return True
    if job.score is None or job.threshold is None:
        return False
    return abs(job.score - job.threshold) < NEAR_THRESHOLD


def on_job_saved(sender, instance, **kwargs) -> None:
    job = instance
    if job.status != "completed" or job.verification_status != "verified":
        return
    if ReviewItem.objects.filter(job_id=job.pk).exists():
        return
    rate = (
        QualitySettings.objects.filter(tenant_id=job.tenant_id)
        .values_list("sample_rate", flat=True)
        .first()
    )
    in_sample = sampled(job.pk, DEFAULT_SAMPLE_RATE if rate is None else rate)
    if uncertain(job):
        reason = ReviewItem.UNCERTAIN
    elif in_sample:
        reason = ReviewItem.SAMPLE
    else:
        return
    ReviewItem.objects.get_or_create(
        job_id=job.pk,
        defaults={"tenant_id": job.tenant_id, "reason": reason, "in_sample": in_sample},
    )


def on_feedback_saved(sender, instance, created, **kwargs) -> None:
    if not created or instance.outcome != "hallucinated":
        return
    item, made = ReviewItem.objects.get_or_create(
        job_id=instance.job_id,
        defaults={"tenant_id": instance.tenant_id, "reason": ReviewItem.FLAGGED},
    )
    if not made and item.reason != ReviewItem.FLAGGED:
        item.reason = ReviewItem.FLAGGED  # the strongest reason is shown
        item.save(update_fields=["reason"])


def queue_for(tenant, reviewer, reason: str = "", pending_only: bool = True):
    """The tenant's review items, oldest first; `pending_only`: those this reviewer has not
    labelled yet."""
    items = ReviewItem.objects.filter(tenant=tenant).select_related("job")
    if reason:
        items = items.filter(reason=reason)
    mine = Label.objects.filter(job_id=OuterRef("job_id"), reviewer=reviewer)
    items = items.annotate(
        labelled_by_me=Exists(mine), label_count=Count("job__labels", distinct=True)
    )
    if pending_only:
        items = items.filter(labelled_by_me=False)
    return items.order_by("created_at", "id")


def counts(tenant) -> dict:
    items = ReviewItem.objects.filter(tenant=tenant)
    return items.aggregate(
        total=Count("id"),
        labelled=Count("id", filter=Q(job__labels__isnull=False), distinct=True),
    )
