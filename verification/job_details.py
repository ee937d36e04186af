"""Reading finished jobs the way their representation needs them, and waiting for one.

`jobs_with_details()` fetches what `VerificationSerializer` reads (spans, usage) with
the jobs; `wait_until_final` blocks on the wait channel until a job completes or
fails. The API's verification views and the gateway share them.
"""

from __future__ import annotations

import datetime as dt

from django.db.models import QuerySet
from django.db.models.query import ModelIterable

from .models import DetectedSpan, UsageRecord, VerificationJob
from .models.jobs import FINAL_STATUSES
from .partitions import add_months, month_floor
from .queue.wait import wait_for


class JobsWithDetails(QuerySet):
    """Jobs that fetch what `VerificationSerializer` reads (spans, usage) with them.

    Spans are partitioned like the jobs, usage by its own month (`verification/partitions.py`):
    their queries name the months and retention classes of the jobs just read, so Postgres
    plans and reads those partitions only (a join or `job_id IN (…)` alone would visit them
    all).
    """

    def _fetch_all(self) -> None:
        fetched = self._result_cache is not None
        super()._fetch_all()
        if not fetched and self._iterable_class is ModelIterable and self._result_cache:
            _attach_details(self._result_cache)


def _usage_months(jobs: list[VerificationJob]) -> dict[str, object]:
    """Where the jobs' usage rows are: written when a job completes, so from the month of
    its creation to the month after its completion (a row written just after midnight)."""
    hint: dict[str, object] = {
        "created_at__gte": _month_start(min(job.created_at for job in jobs)),
        "retention_months__in": sorted({job.retention_months for job in jobs}),
    }
    finished = [job.completed_at for job in jobs if job.completed_at is not None]
    if len(finished) == len(jobs):
        hint["created_at__lt"] = _month_start(max(finished), ahead=2)
    return hint


def _month_start(at: dt.datetime, ahead: int = 0) -> dt.datetime:
    month = add_months(month_floor(at), ahead)
    return dt.datetime(month.year, month.month, 1, tzinfo=dt.UTC)


def _attach_details(jobs: list[VerificationJob]) -> None:
    """Read the jobs' spans and usage, one query each, and cache them on the jobs as
    `prefetch_related` would (`job.spans.all()`, `job.usage`), without its per-job querysets."""
    ids = [job.pk for job in jobs]
    spans: dict[object, list[DetectedSpan]] = {pk: [] for pk in ids}
    for span in DetectedSpan.objects.filter(
        job_id__in=ids,
        job_created_at__gte=min(job.created_at for job in jobs),
        job_created_at__lte=max(job.created_at for job in jobs),
        retention_months__in=sorted({job.retention_months for job in jobs}),
    ):  # in the model's order (iteration, start), as the job's own `spans.all()`
        spans[span.job_id].append(span)
    usage = {
        row.job_id: row for row in UsageRecord.objects.filter(job_id__in=ids, **_usage_months(jobs))
    }
    # A final job's usage outside those months (a row written by hand, not at completion):
    # asked again without the months, so the answer never depends on them.
    missing = [job for job in jobs if job.is_final and job.pk not in usage]
    if missing:
        classes = sorted({job.retention_months for job in missing})
        usage.update(
            (row.job_id, row)
            for row in UsageRecord.objects.filter(
                job_id__in=[job.pk for job in missing], retention_months__in=classes
            )
        )
    spans_cache = VerificationJob.spans.field.remote_field.cache_name
    usage_cache = VerificationJob.usage.related
    for job in jobs:
        found = QuerySet(DetectedSpan)
        found._result_cache = spans[job.pk]
        found._prefetch_done = True
        for span in found._result_cache:
            DetectedSpan.job.field.set_cached_value(span, job)
        job._prefetched_objects_cache = {
            **getattr(job, "_prefetched_objects_cache", {}),
            spans_cache: found,
        }
        row = usage.get(job.pk)
        usage_cache.set_cached_value(job, row)
        if row is not None:
            UsageRecord.job.field.set_cached_value(row, job)


def jobs_with_details() -> QuerySet[VerificationJob]:
    """Jobs with what `VerificationSerializer` reads (spans, usage) fetched up front."""
    return JobsWithDetails(VerificationJob)


def wait_until_final(job: VerificationJob, timeout_s: float) -> None:
    """Block up to `timeout_s` for `job` to complete or fail (woken early when it does)."""
    finished = VerificationJob.objects.filter(pk=job.pk, status__in=FINAL_STATUSES)
    wait_for(job.public_id, timeout_s, finished.exists)
