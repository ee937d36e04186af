"""Celery settings (imported into Django settings; the Celery app in `workers/app.py` reads
them with namespace "CELERY").

Reliability choices: tasks ack late and are re-queued when a worker dies
(every task is idempotent on its job id), the prefetch multiplier is 1 so
a long detection never holds other jobs hostage, and the Redis visibility
timeout is short enough that an unacked message comes back within minutes.
The sweeper (beat) is the second line of defence: it re-enqueues jobs whose
lease expired, so a lost message never loses a job.

Workers list the interactive queue before its batch queue
(`-Q detect_interactive,detect`); with the priority queue order a worker always
drains the first before it takes from the second.
"""

from __future__ import annotations

from celery.schedules import crontab
from kombu import Queue

from .env import env_float, env_int, env_str

CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", env_str("REDIS_URL", "redis://127.0.0.1:6379/0"))
CELERY_RESULT_BACKEND = None  # results live in Postgres, not in the broker
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 900, minimum=1),
    "socket_connect_timeout": 3,
    "socket_timeout": 10,
    "retry_on_timeout": True,
    # Publishing from a request must fail fast when Redis is down: the job is already in
    # the outbox and the relay sends it later. kombu's default (retry with 2 s, 4 s ...
    # sleeps) held every POST for ~6 s during an outage. Workers reconnect with their own
    # settings (broker_connection_max_retries), which these options do not touch.
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.5,
    # Read a worker's queues in the order of its `-Q` (kombu's default is round robin):
    # `detect_interactive,detect` takes every waiting client's job before the next batch job.
    "queue_order_strategy": "priority",
}
# Interactive work (a gateway call, the API's `wait > 0`) has its own lane per stage.
CELERY_TASK_QUEUES = (
    Queue("detect_interactive"),
    Queue("detect"),
    Queue("mitigate_interactive"),
    Queue("mitigate"),
    Queue("webhooks"),
    Queue("maintenance"),
    # Knowledge-base indexing: its own workers, so a large upload neither waits behind
    # verifications nor holds a detect process while they wait.
    Queue("index"),
)
CELERY_TASK_DEFAULT_QUEUE = "maintenance"
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 600, minimum=1)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 660, minimum=1)

_SWEEP = env_float("TRUTHLENS_SWEEP_INTERVAL_SECONDS", 15, minimum=0.2)
CELERY_BEAT_SCHEDULE = {
    "sweep-stuck-jobs": {
        "task": "truthlens.sweep_jobs",
        "schedule": _SWEEP,
        "options": {"expires": _SWEEP, "queue": "maintenance"},
    },
    # the request log's trim (and the usage alerts) need not run as often as the sweeper
    "console-housekeeping": {
        "task": "truthlens.console_housekeeping",
        "schedule": 60.0,
        "options": {"expires": 60.0, "queue": "maintenance"},
    },
    "dispatch-due-webhooks": {
        "task": "truthlens.dispatch_webhooks",
        "schedule": _SWEEP,
        "options": {"expires": _SWEEP, "queue": "maintenance"},
    },
    # verification/partitions.py: next months' job partitions, retention by whole partitions
    "partition-maintenance": {
        "task": "truthlens.partition_maintenance",
        "schedule": crontab(minute=17, hour=3),
        "options": {"expires": 3600.0, "queue": "maintenance"},
    },
    # quality.drift alerts (quality/drift.py): once a week at most per tenant
    "check-label-drift": {
        "task": "truthlens.check_drift",
        "schedule": 3600.0,
        "options": {"expires": 3600.0, "queue": "maintenance"},
    },
}
