"""Publishing job messages to the broker, through the transactional outbox."""

from __future__ import annotations

import logging

from celery import current_app
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import RedisError

from .models import OutboxMessage

log = logging.getLogger(__name__)

TASK_DETECT = "truthlens.detect"
TASK_MITIGATE = "truthlens.mitigate"
TASK_DELIVER_WEBHOOK = "truthlens.deliver_webhook"


def publish_outbox(message_id: int) -> bool:
    """Send one outbox message to the broker and mark it published.

    Returns False (and leaves the message for the relay) when the broker is
    unreachable: the job is already durable in Postgres, so the request
    that created it still succeeds.
    """
    message = OutboxMessage.objects.filter(pk=message_id, published_at__isnull=True).first()
    if message is None:
        return True
    try:
        current_app.send_task(
            message.task, args=[str(message.job_id)], queue=message.queue, retry=False
        )
    except (KombuOperationalError, RedisError, OSError) as exc:
        log.warning("broker unavailable, outbox message %s left for the relay: %s", message_id, exc)
        return False
    OutboxMessage.objects.filter(pk=message_id, published_at__isnull=True).update(
        published_at=timezone.now()
    )
    return True


def enqueue_webhook(delivery_id: int) -> bool:
    try:
        current_app.send_task(
            TASK_DELIVER_WEBHOOK, args=[delivery_id], queue="webhooks", retry=False
        )
    except (KombuOperationalError, RedisError, OSError) as exc:
        log.warning("broker unavailable, webhook %s left for the dispatcher: %s", delivery_id, exc)
        return False
    return True
