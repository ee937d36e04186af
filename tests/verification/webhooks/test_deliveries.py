"""Webhook deliveries: targets, attempts, backoff and giving up — called directly, real Postgres."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tenants.models import WebhookEndpoint
from verification.actions.create import NewVerification, create_verification
from verification.models import WebhookAttempt, WebhookDelivery
from verification.webhooks import dispatch as webhooks
from verification.webhooks import signing

pytestmark = pytest.mark.django_db


def _job(tenant, callback_url=""):
    job, _ = create_verification(
        tenant, NewVerification(context=["c"], response="r", callback_url=callback_url)
    )
    return job


def test_deliveries_go_to_the_callback_and_to_subscribed_endpoints_only(tenant_a):
    tenant = tenant_a.tenant
    wanted = WebhookEndpoint(
        tenant=tenant, url="http://127.0.0.1:9/a", events=["verification.completed"]
    )
    wanted.set_new_secret()
    wanted.save()
    other = WebhookEndpoint(
        tenant=tenant, url="http://127.0.0.1:9/b", events=["verification.failed"]
    )
    other.set_new_secret()
    other.save()
    job = _job(tenant, callback_url="http://127.0.0.1:9/cb")
    ids = webhooks.create_deliveries(job, "verification.completed")
    deliveries = list(WebhookDelivery.objects.filter(pk__in=ids))
    assert {d.url for d in deliveries} == {"http://127.0.0.1:9/cb", "http://127.0.0.1:9/a"}
    # each target gets its own event id, in the row and in the signed payload
    assert len({d.event_id for d in deliveries}) == 2
    for delivery in deliveries:
        assert delivery.payload["id"] == delivery.event_id
        assert delivery.payload["type"] == "verification.completed"
        assert delivery.payload["data"]["id"] == job.public_id


def test_a_job_without_targets_creates_no_deliveries(tenant_a):
    assert webhooks.create_deliveries(_job(tenant_a.tenant), "verification.completed") == []
    assert not WebhookDelivery.objects.exists()


def test_an_endpoint_delivery_is_signed_with_the_endpoints_secret(tenant_a, receiver):
    tenant = tenant_a.tenant
    endpoint = WebhookEndpoint(tenant=tenant, url=receiver.url)
    secret = endpoint.set_new_secret()
    endpoint.save()
    [delivery_id] = webhooks.create_deliveries(_job(tenant), "verification.completed")
    assert webhooks.attempt_delivery(delivery_id) == WebhookDelivery.SUCCEEDED
    got = receiver.received[0]
    assert signing.verify(secret, got.body, got.headers["X-TruthLens-Signature"])
    assert not signing.verify(tenant.webhook_secret, got.body, got.headers["X-TruthLens-Signature"])


def test_a_failed_attempt_is_logged_and_rescheduled_with_backoff(tenant_a, receiver):
    receiver.responses = [503]
    [delivery_id] = webhooks.create_deliveries(
        _job(tenant_a.tenant, receiver.url), "verification.completed"
    )
    before = timezone.now()
    assert webhooks.attempt_delivery(delivery_id) == WebhookDelivery.PENDING
    delivery = WebhookDelivery.objects.get(pk=delivery_id)
    assert delivery.next_attempt_at > before
    assert delivery.last_status_code == 503
    assert WebhookAttempt.objects.get(delivery=delivery).error == "HTTP 503"
    # not due yet: a second attempt right away is not claimed
    assert webhooks.attempt_delivery(delivery_id) is None


def test_it_gives_up_after_the_retry_window(tenant_a, receiver):
    receiver.responses = [500]
    [delivery_id] = webhooks.create_deliveries(
        _job(tenant_a.tenant, receiver.url), "verification.completed"
    )
    WebhookDelivery.objects.filter(pk=delivery_id).update(
        created_at=timezone.now() - timedelta(days=2)
    )
    assert webhooks.attempt_delivery(delivery_id) == WebhookDelivery.FAILED


def test_a_url_that_turned_internal_is_refused_at_delivery(tenant_a, settings):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "WEBHOOK_ALLOWED_HOSTS": []}
    [delivery_id] = webhooks.create_deliveries(
        _job(tenant_a.tenant, "http://127.0.0.1:9/x"), "verification.completed"
    )
    webhooks.attempt_delivery(delivery_id)
    attempt = WebhookAttempt.objects.get(delivery_id=delivery_id)
    assert attempt.status_code is None
    assert attempt.error.startswith("refused")


def test_backoff_grows_exponentially_up_to_the_cap(settings):
    settings.TRUTHLENS = {
        **settings.TRUTHLENS,
        "WEBHOOK_RETRY_BASE_SECONDS": 10,
        "WEBHOOK_RETRY_MAX_DELAY_SECONDS": 100,
    }
    delays = [webhooks.backoff_seconds(n) for n in (1, 2, 3, 10)]
    assert 8 <= delays[0] <= 12
    assert 16 <= delays[1] <= 24
    assert 32 <= delays[2] <= 48
    assert delays[3] <= 120
