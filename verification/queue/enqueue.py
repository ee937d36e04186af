"""Queueing a job's next stage through the transactional outbox, and publishing it.

`STAGE_TASKS` is the one map from a stage to its Celery task and queues; the
tasks in `workers/tasks/` are registered under these names. Each stage has two
queues: interactive work (someone waits on the answer) goes to the `*_interactive`
queue, which workers consume first (`queue_order_strategy: priority`), so a
client's call never waits behind another tenant's batch.
"""

from __future__ import annotations

import logging
import uuid
from typing import NamedTuple

from celery import current_app
from django.db import transaction
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import RedisError

from ..models import JobStage, OutboxMessage, VerificationJob

log = logging.getLogger(__name__)


class Route(NamedTuple):
    task: str
    queue: str
    interactive_queue: str

    def queue_for(self, interactive: bool) -> str:
        return self.interactive_queue if interactive else self.queue


DETECT = Route("truthlens.detect", "detect", "detect_interactive")
MITIGATE = Route("truthlens.mitigate", "mitigate", "mitigate_interactive")

#: The stage a job waits in -> the task that runs it.
STAGE_TASKS = {JobStage.DETECT: DETECT, JobStage.MITIGATE: MITIGATE}


def enqueue_stage(job_id: uuid.UUID, stage: str, interactive: bool | None = None) -> OutboxMessage:
    """Record the message that runs `stage` for the job, and publish it once the
    surrounding transaction commits (the relay retries what the broker refused).
    `interactive` picks the queue; None reads it from the job."""
    route = STAGE_TASKS.get(JobStage(stage))
    if route is None:
        raise ValueError(f"no task runs the stage {stage!r}")
    if interactive is None:
        interactive = bool(
            VerificationJob.objects.filter(pk=job_id).values_list("interactive", flat=True).first()
        )
    with transaction.atomic():
        message = OutboxMessage.objects.create(
            job_id=job_id, task=route.task, queue=route.queue_for(interactive)
        )
        transaction.on_commit(lambda: publish_outbox(message.pk))
    return message


def publish_outbox(message_id: int) -> bool:
    """Send one outbox message to the broker and mark it published.

    Returns False (and leaves the message for the relay) when the broker is
    unreachable: the job is already durable in Postgres, so the request
    that created it still succeeds.
    """
    message = OutboxMessage.objects.filter(pk=message_id, published_at__isnull=True).first()
    if message is None:
        return True
    return publish_message(message.pk, message.job_id, message.task, message.queue)


def publish_message(message_id: int, job_id: uuid.UUID, task: str, queue: str) -> bool:
    """`publish_outbox` for a message whose fields the caller holds (no read)."""
    try:
        current_app.send_task(task, args=[str(job_id)], queue=queue, retry=False)
    except (KombuOperationalError, RedisError, OSError) as exc:
        log.warning("broker unavailable, outbox message %s left for the relay: %s", message_id, exc)
        return False
    OutboxMessage.objects.filter(pk=message_id, published_at__isnull=True).update(
        published_at=timezone.now()
    )
    return True
