"""Evaluating a policy on a labelled dataset (on the detect queue: it runs the detector)."""

from __future__ import annotations

from celery import shared_task

from quality.evaluation import QUEUE, TASK, run_evaluation
from verification.tenant_config import service_detector


# Not acks_late: a run claims its row (queued -> running) before it starts, so a message
# delivered again after a worker died would find it taken; the dashboard offers a re-run.
@shared_task(name=TASK, queue=QUEUE)
def evaluate_dataset(evaluation_id: str) -> str | None:
    return run_evaluation(evaluation_id, service_detector())
