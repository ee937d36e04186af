"""Options shared by the job tasks: idempotent on the job id, so they ack late and are
re-queued when a worker dies; only transient database errors are retried, with backoff."""

from django.db import InterfaceError, OperationalError

JOB_TASK_OPTIONS = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": 2,
    "retry_backoff_max": 60,
    "max_retries": 10,
}
