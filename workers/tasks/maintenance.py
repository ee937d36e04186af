"""Periodic tasks run by beat: the job, document and evaluation sweeper and the webhook dispatcher."""

from __future__ import annotations

from celery import shared_task

from knowledge.queueing import sweep_documents
from quality.evaluation import sweep_stalled_evaluations
from verification.actions.sweep import relay_outbox, sweep_stuck_jobs
from verification.webhooks.dispatch import dispatch_due


@shared_task(name="truthlens.sweep_jobs", queue="maintenance", ignore_result=True)
def sweep_jobs() -> dict[str, int]:
    counts = sweep_stuck_jobs()
    counts["relayed"] = relay_outbox()
    counts["documents"] = sweep_documents()
    counts.update({f"evaluations_{k}": n for k, n in sweep_stalled_evaluations().items()})
    return counts


@shared_task(name="truthlens.dispatch_webhooks", queue="maintenance", ignore_result=True)
def dispatch_webhooks() -> int:
    return dispatch_due()
