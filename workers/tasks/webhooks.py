"""Webhook delivery on its own queue."""

from __future__ import annotations

from celery import shared_task

from observability import tracing
from verification.webhooks.dispatch import QUEUE_DELIVER, TASK_DELIVER, attempt_delivery

from .options import JOB_TASK_OPTIONS


@shared_task(name=TASK_DELIVER, queue=QUEUE_DELIVER, **JOB_TASK_OPTIONS)
def deliver_webhook(delivery_id: int) -> str | None:
    """One attempt; failures are rescheduled in the row (next_attempt_at), not via Celery retry."""
    with tracing.continued(deliver_webhook.request, "webhook", delivery_id=delivery_id):
        return attempt_delivery(delivery_id)
