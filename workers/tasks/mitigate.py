"""Mitigation on its own queue: LLM-bound, high concurrency."""

from __future__ import annotations

from celery import shared_task

from observability import tracing
from observability.logcontext import bind
from verification.actions.stages import claim_mitigation
from verification.queue.enqueue import MITIGATE

from .options import JOB_TASK_OPTIONS


@shared_task(name=MITIGATE.task, queue=MITIGATE.queue, **JOB_TASK_OPTIONS)
def mitigate(job_id: str) -> None:
    """Idempotent on the job id: only a job waiting for mitigation (or whose lease expired) runs."""
    job = claim_mitigation(job_id)
    if job is None:
        return
    # the mitigate stage imports litellm; a detect-only worker never loads it
    from verification.stages import mitigate as mitigate_stage

    with (
        bind(job_id=job.public_id, tenant_id=str(job.tenant_id)),
        tracing.continued(mitigate.request, "mitigate", mode=job.mode),
    ):
        mitigate_stage.run(job)
