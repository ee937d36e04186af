"""Periodic tasks run by beat: the job, document and evaluation sweeper and the webhook dispatcher."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.db import connection, transaction

from knowledge.queueing import sweep_documents
from quality.evaluation import sweep_stalled_evaluations
from tenants.request_log import trim as trim_request_log
from verification import partitions
from verification.actions.sweep import relay_outbox, sweep_stuck_jobs
from verification.billing.alerts import check_all as check_usage_alerts
from verification.webhooks.dispatch import dispatch_due


@shared_task(name="truthlens.sweep_jobs", queue="maintenance", ignore_result=True)
def sweep_jobs() -> dict[str, int]:
    counts = sweep_stuck_jobs()
    counts["relayed"] = relay_outbox()
    counts["documents"] = sweep_documents()
    counts.update({f"evaluations_{k}": n for k, n in sweep_stalled_evaluations().items()})
    return counts


@shared_task(name="truthlens.console_housekeeping", queue="maintenance", ignore_result=True)
def console_housekeeping() -> dict[str, int]:
    """The console's periodic chores: trim the API request log, send quota and budget alerts."""
    return {"request_log_trimmed": trim_request_log(), "usage_alerts": check_usage_alerts()}


@shared_task(name="truthlens.dispatch_webhooks", queue="maintenance", ignore_result=True)
def dispatch_webhooks() -> int:
    return dispatch_due()


@shared_task(name="truthlens.partition_maintenance", queue="maintenance", ignore_result=True)
def partition_maintenance() -> dict[str, object]:
    """Nightly: the coming months' job partitions, then retention by whole partitions."""
    archive = settings.TRUTHLENS["JOB_RETENTION_ARCHIVE"]
    # DDL waits for the tables' readers; never queue the API behind it for long: a lock not
    # had in 10 s fails the run, and the next night's retries (nothing is half done).
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL lock_timeout = '10s'")
        result = partitions.maintain(cursor, archive=archive)
    return {
        "created": len(result.created),
        "dropped": result.dropped,
        "archived": result.archived,
        "dependent_rows": result.dependent_rows,
        "default_rows": result.default_rows,
    }
