"""Creating, dispatching and attempting webhook deliveries.

Deliveries are rows first (created in the job's completing transaction),
messages second: the dispatcher re-enqueues anything due, so a broker
outage or a killed worker delays a webhook but never drops it. Retries use
exponential backoff with jitter until the retry window (24 h) closes; a URL the address
guard refuses (a private address, a bad scheme) fails at once, with the reason on its
attempt (a host that does not resolve is retried: DNS may answer later).
"""

from __future__ import annotations

import logging
import random
import secrets
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import RedisError

from observability import metrics
from tenants.models import WebhookEndpoint

from ..models import VerificationJob, WebhookAttempt, WebhookDelivery
from ..serializers import VerificationSerializer
from . import delivery as transport

log = logging.getLogger(__name__)

TASK_DELIVER = "truthlens.deliver_webhook"
QUEUE_DELIVER = "webhooks"


def enqueue_webhook(delivery_id: int) -> bool:
    """Send one delivery to the webhook queue; False (left for the dispatcher) when the
    broker is unreachable."""
    try:
        current_app.send_task(TASK_DELIVER, args=[delivery_id], queue=QUEUE_DELIVER, retry=False)
    except (KombuOperationalError, RedisError, OSError) as exc:
        log.warning("broker unavailable, webhook %s left for the dispatcher: %s", delivery_id, exc)
        return False
    return True


SENDING_LEASE = timedelta(minutes=2)


def event_payload(data: dict, event_type: str, event_id: str) -> dict:
    return {
        "id": event_id,
        "type": event_type,
        "created": int(timezone.now().timestamp()),
        "data": data,
    }


def create_deliveries(job: VerificationJob, event_type: str) -> list[int]:
    """One delivery per target: the request's callback_url and each subscribed endpoint."""
    targets: list[tuple[str, int | None]] = []
    if job.callback_url:
        targets.append((job.callback_url, None))
    for endpoint in job.tenant.webhook_endpoints.filter(is_active=True):
        if endpoint.wants(event_type):
            targets.append((endpoint.url, endpoint.pk))
    if not targets:
        return []
    data = VerificationSerializer(job).data  # once per event: it reads the spans and usage
    deliveries = []
    for url, endpoint_id in targets:
        event_id = "evt_" + secrets.token_hex(12)
        deliveries.append(
            WebhookDelivery(
                tenant=job.tenant,
                job=job,
                endpoint_id=endpoint_id,
                url=url,
                event_id=event_id,
                event_type=event_type,
                payload=event_payload(data, event_type, event_id),
            )
        )
    return [delivery.pk for delivery in WebhookDelivery.objects.bulk_create(deliveries)]


def tenant_event_deliveries(tenant_id: int, event_type: str, data: dict) -> list[int]:
    """A tenant-level event (not a job's): one delivery per active endpoint subscribed to it."""
    rows = []
    for endpoint in WebhookEndpoint.objects.filter(tenant_id=tenant_id, is_active=True):
        if endpoint.wants(event_type):
            event_id = "evt_" + secrets.token_hex(12)
            rows.append(
                WebhookDelivery(
                    tenant_id=tenant_id,
                    endpoint=endpoint,
                    url=endpoint.url,
                    event_id=event_id,
                    event_type=event_type,
                    payload=event_payload(data, event_type, event_id),
                )
            )
    return [delivery.pk for delivery in WebhookDelivery.objects.bulk_create(rows)]


def enqueue(delivery_ids: list[int]) -> None:
    for delivery_id in delivery_ids:
        enqueue_webhook(delivery_id)


def _secrets(delivery: WebhookDelivery) -> list[str]:
    """An endpoint's live secrets (a rotated one signs too until its window closes), or the
    tenant's callback-URL secret."""
    if delivery.endpoint_id is not None and delivery.endpoint is not None:
        return delivery.endpoint.signing_secrets()
    return [delivery.tenant.webhook_secret]


def backoff_seconds(attempt: int) -> float:
    conf = settings.TRUTHLENS
    base = conf["WEBHOOK_RETRY_BASE_SECONDS"] * (2 ** max(0, attempt - 1))
    return min(conf["WEBHOOK_RETRY_MAX_DELAY_SECONDS"], base) * random.uniform(0.8, 1.2)


def attempt_delivery(delivery_id: int) -> str | None:
    """Claim a due delivery and make one attempt; returns the new status, None if not claimed."""
    now = timezone.now()
    claimable = Q(status=WebhookDelivery.PENDING, next_attempt_at__lte=now) | Q(
        status=WebhookDelivery.SENDING, lease_expires_at__lt=now
    )
    claimed = (
        WebhookDelivery.objects.filter(pk=delivery_id)
        .filter(claimable)
        .update(
            status=WebhookDelivery.SENDING,
            lease_expires_at=now + SENDING_LEASE,
            attempts=F("attempts") + 1,
        )
    )
    if claimed != 1:
        return None
    delivery = WebhookDelivery.objects.select_related("tenant", "endpoint").get(pk=delivery_id)
    conf = settings.TRUTHLENS
    result = transport.send(
        delivery.url,
        _secrets(delivery),
        delivery.payload,
        timeout_s=conf["WEBHOOK_TIMEOUT_SECONDS"],
        allowed_hosts=conf["WEBHOOK_ALLOWED_HOSTS"],
    )
    WebhookAttempt.objects.create(
        delivery=delivery,
        number=delivery.attempts,
        status_code=result.status_code,
        error=result.error,
        response_body=result.response_body,
        duration_ms=result.duration_ms,
    )
    done = timezone.now()
    if result.ok:
        status = WebhookDelivery.SUCCEEDED
        updates = {"delivered_at": done}
    elif delivery.event_type == WebhookDelivery.TEST_EVENT:
        status = WebhookDelivery.FAILED  # a test shows its one result; retrying it helps no one
        updates = {}
    elif result.permanent:
        status = WebhookDelivery.FAILED  # the address guard refuses this URL: it always will
        updates = {}
    elif (done - delivery.created_at).total_seconds() >= conf["WEBHOOK_RETRY_WINDOW_SECONDS"]:
        status = WebhookDelivery.FAILED
        updates = {}
    else:
        status = WebhookDelivery.PENDING
        updates = {"next_attempt_at": done + timedelta(seconds=backoff_seconds(delivery.attempts))}
    WebhookDelivery.objects.filter(pk=delivery_id).update(
        status=status, lease_expires_at=None, last_status_code=result.status_code, **updates
    )

    metrics.WEBHOOKS.labels(outcome="delivered" if result.ok else "failed_attempt").inc()
    return status


def dispatch_due(limit: int = 500) -> int:
    """Enqueue deliveries that are due (retries, and any whose message was lost)."""
    now = timezone.now()
    due = WebhookDelivery.objects.filter(
        Q(status=WebhookDelivery.PENDING, next_attempt_at__lte=now)
        | Q(status=WebhookDelivery.SENDING, lease_expires_at__lt=now)
    ).values_list("pk", flat=True)[:limit]
    ids = list(due)
    enqueue(ids)
    return len(ids)


def replay(delivery: WebhookDelivery) -> WebhookDelivery:
    """Send a delivery's event again as a new delivery (dashboard "replay")."""
    copy = WebhookDelivery.objects.create(
        tenant=delivery.tenant,
        job=delivery.job,
        endpoint=delivery.endpoint,
        url=delivery.url,
        event_id=delivery.event_id + "_r" + secrets.token_hex(3),
        event_type=delivery.event_type,
        payload=delivery.payload,
    )
    enqueue([copy.pk])
    return copy
