"""The dashboard's "Send test event": one signed `webhook.test` delivery to an endpoint.

It is a delivery row like any other and goes through `attempt_delivery` (claim, sign with
the endpoint's live secrets, POST, log the attempt), so a test that succeeds proves the
real path works; it is attempted at once, in the request, and never retried.
"""

from __future__ import annotations

import secrets

from tenants.models import WebhookEndpoint

from ..models import WebhookDelivery
from .dispatch import attempt_delivery, event_payload


def send_test_event(endpoint: WebhookEndpoint) -> WebhookDelivery:
    """Create and attempt a test delivery to `endpoint`; returns the row after the attempt."""
    event_id = "evt_test_" + secrets.token_hex(10)
    data = {"message": "A test event from the TruthLens dashboard.", "endpoint": endpoint.url}
    delivery = WebhookDelivery.objects.create(
        tenant=endpoint.tenant,
        endpoint=endpoint,
        url=endpoint.url,
        event_id=event_id,
        event_type=WebhookDelivery.TEST_EVENT,
        payload=event_payload(data, WebhookDelivery.TEST_EVENT, event_id),
    )
    attempt_delivery(delivery.pk)
    delivery.refresh_from_db()
    return delivery
