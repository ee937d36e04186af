"""Detection on the GPU queue: claim a micro-batch of jobs and run them together."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from observability import metrics, tracing
from verification.actions.claim import claim, claim_more
from verification.queue.enqueue import DETECT
from verification.stages.detect import process_jobs

from .options import JOB_TASK_OPTIONS

log = logging.getLogger(__name__)


@shared_task(name=DETECT.task, queue=DETECT.queue, **JOB_TASK_OPTIONS)
def detect(job_id: str) -> None:
    """Idempotent on the job id: a job already taken or finished is left alone."""
    job = claim(job_id)
    if job is None:
        return
    more = settings.TRUTHLENS["DETECT_BATCH_SIZE"] - 1
    batch = [job] + claim_more(more, exclude=job.pk, interactive_only=job.interactive)
    with tracing.continued(detect.request, "detect", batch_size=len(batch)):
        process_jobs(batch)
    metrics.GPU_MEMORY.set(metrics.gpu_memory_bytes())
