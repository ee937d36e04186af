"""A delivery the address guard refuses fails at once with the reason, instead of being
retried for 24 hours; a host that does not resolve (DNS may answer later) is retried."""

from __future__ import annotations

import socket

import pytest

from verification.actions.create import NewVerification, create_verification
from verification.models import WebhookAttempt, WebhookDelivery
from verification.webhooks import dispatch as webhooks

pytestmark = pytest.mark.django_db


@pytest.fixture
def no_allowed_hosts(settings):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "WEBHOOK_ALLOWED_HOSTS": []}


def _delivery(tenant, url: str) -> int:
    job, _ = create_verification(
        tenant, NewVerification(context=["c"], response="r", callback_url=url)
    )
    [delivery_id] = webhooks.create_deliveries(job, "verification.completed")
    return delivery_id


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1:9/hook", "non-public address (127.0.0.1)"),
        ("http://10.1.2.3/hook", "non-public address (10.1.2.3)"),
        ("http://[::ffff:169.254.169.254]/latest", "non-public address"),
    ],
)
def test_a_refused_address_fails_at_once_with_the_reason(
    tenant_a, no_allowed_hosts, url, reason, client, owner_a
):
    delivery_id = _delivery(tenant_a.tenant, url)
    assert webhooks.attempt_delivery(delivery_id) == WebhookDelivery.FAILED
    delivery = WebhookDelivery.objects.get(pk=delivery_id)
    assert delivery.attempts == 1
    attempt = WebhookAttempt.objects.get(delivery=delivery)
    assert attempt.error.startswith("refused: ")
    assert reason in attempt.error
    assert webhooks.dispatch_due() == 0  # nothing left to retry
    client.force_login(owner_a)
    page = client.get(f"/dashboard/webhooks/deliveries/{delivery_id}/").content.decode()
    assert "refused: " in page


def test_a_host_that_does_not_resolve_is_retried(tenant_a, no_allowed_hosts, monkeypatch):
    def no_dns(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_dns)
    delivery_id = _delivery(tenant_a.tenant, "https://hooks.example.com/x")
    assert webhooks.attempt_delivery(delivery_id) == WebhookDelivery.PENDING
    attempt = WebhookAttempt.objects.get(delivery_id=delivery_id)
    assert "does not resolve" in attempt.error
