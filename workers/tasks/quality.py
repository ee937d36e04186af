"""Evaluating a policy on a labelled dataset (on the detect queue: it runs the detector)."""

from __future__ import annotations

from celery import shared_task

from quality.evaluation import QUEUE, TASK, run_evaluation
from verification.tenant_config import service_detector


# Not acks_late: a run claims its row (queued -> running) before it starts, so a message
# delivered again after a worker died would find it taken. The sweeper re-queues a run with
# no progress for a while (`sweep_stalled_evaluations`); the dashboard offers a re-run.
@shared_task(name=TASK, queue=QUEUE)
def evaluate_dataset(evaluation_id: str) -> str | None:
    return run_evaluation(evaluation_id, service_detector())


@shared_task(name="truthlens.check_drift", queue="maintenance", ignore_result=True)
def check_drift_all() -> int:
    """Every active tenant's drift check (beat, daily); how many alerts went out."""
    from quality.drift import check_drift
    from tenants.models import Tenant

    return sum(len(check_drift(t)) > 0 for t in Tenant.objects.filter(is_active=True))
