"""Webhooks in the dashboard: secrets shown once across a redirect, the test event, the
response bodies in the log, the paused-endpoint warning and the rotation overlap window."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from tenants.models import ApiKey, WebhookEndpoint
from tests.conftest import _make_tenant
from verification.models import WebhookAttempt, WebhookDelivery
from verification.webhooks import dispatch, signing
from verification.webhooks.delivery import RESPONSE_BODY_BYTES


@pytest.fixture
def owner_client(client, owner_a):
    client.force_login(owner_a)
    return client


@pytest.fixture
def local_hooks(settings):
    settings.TRUTHLENS = {
        **settings.TRUTHLENS,
        "WEBHOOK_ALLOWED_HOSTS": ["127.0.0.1"],
        "WEBHOOK_SECRET_OVERLAP_SECONDS": 86400,
    }


def test_a_refresh_after_creating_a_key_creates_no_second_key(owner_client, tenant_a):
    # given a key created through the form
    posted = owner_client.post(reverse("dashboard:keys"), {"name": "ci", "scope": "write"})
    assert posted.status_code == 303
    shown = owner_client.get(posted["Location"])
    token = shown.context["token"]
    assert token.startswith("tl_")
    assert b'data-copy="new-token"' in shown.content
    # when the page is loaded again (a refresh re-sends the GET, not the POST)
    again = owner_client.get(posted["Location"])
    # then there is still one key and the token is not shown again
    assert ApiKey.objects.filter(tenant=tenant_a.tenant, name="ci").count() == 1
    assert token not in again.content.decode()


def test_the_kept_secret_is_encrypted_in_the_session(owner_client):
    owner_client.post(reverse("dashboard:keys"), {"name": "ci", "scope": "write"})
    kept = owner_client.session["dashboard_one_time_secret"]
    assert not kept["secret"].startswith("tl_")


def test_a_secret_kept_for_one_tenant_is_not_shown_in_another(client, staff_user, tenant_a):
    client.force_login(staff_user)
    client.post(reverse("dashboard:keys"), {"name": "ci", "scope": "write"})
    other = _make_tenant("tenant-c").tenant
    client.post(reverse("dashboard:switch-tenant"), {"tenant": other.pk, "next": "/dashboard/"})
    assert client.get(reverse("dashboard:keys")).context["token"] is None


def test_a_refresh_after_rotating_shows_nothing_and_rotates_once(
    owner_client, endpoint_a, local_hooks
):
    first = endpoint_a.secret
    posted = owner_client.post(reverse("dashboard:endpoint-rotate", kwargs={"pk": endpoint_a.pk}))
    assert posted.status_code == 303
    page = owner_client.get(posted["Location"])
    endpoint_a.refresh_from_db()
    assert endpoint_a.secret in page.content.decode()
    assert "signed with both the old and the new secret" in page.content.decode()
    assert page["Cache-Control"] == "no-store"
    second = endpoint_a.secret
    # a refresh of the secret page goes back to the list; nothing rotates
    refresh = owner_client.get(posted["Location"])
    assert refresh.status_code == 302
    endpoint_a.refresh_from_db()
    assert endpoint_a.secret == second != first
    assert endpoint_a.signing_secrets() == [second, first]


def test_both_secrets_sign_during_the_overlap_and_only_the_new_one_after(
    tenant_a, receiver, local_hooks
):
    # given an endpoint whose secret was rotated with a one-day overlap
    endpoint = WebhookEndpoint(tenant=tenant_a.tenant, url=receiver.url)
    old = endpoint.set_new_secret()
    endpoint.save()
    new = endpoint.rotate_secret(86400)
    endpoint.save()
    # when a delivery is attempted inside the window
    delivery = _delivery(endpoint, "evt_overlap_1")
    assert dispatch.attempt_delivery(delivery.pk) == WebhookDelivery.SUCCEEDED
    got = receiver.received[-1]
    header = got.headers["X-TruthLens-Signature"]
    # then the header has two v1 values and both secrets verify it
    assert header.count("v1=") == 2
    assert signing.verify(new, got.body, header)
    assert signing.verify(old, got.body, header)
    assert not signing.verify("whsec_other", got.body, header)
    # when the window has closed
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(
        previous_secret_expires_at=timezone.now() - dt.timedelta(seconds=1)
    )
    delivery = _delivery(endpoint, "evt_overlap_2")
    assert dispatch.attempt_delivery(delivery.pk) == WebhookDelivery.SUCCEEDED
    got = receiver.received[-1]
    header = got.headers["X-TruthLens-Signature"]
    # then only the new secret signs
    assert header.count("v1=") == 1
    assert signing.verify(new, got.body, header)
    assert not signing.verify(old, got.body, header)


def test_an_overlap_of_zero_retires_the_old_secret_at_once(tenant_a):
    endpoint = WebhookEndpoint(tenant=tenant_a.tenant, url="https://hooks.example.com/x")
    endpoint.set_new_secret()
    new = endpoint.rotate_secret(0)
    assert endpoint.signing_secrets() == [new]


def test_send_test_event_delivers_a_signed_test_and_shows_the_result(
    owner_client, tenant_a, receiver, local_hooks
):
    endpoint = WebhookEndpoint(tenant=tenant_a.tenant, url=receiver.url)
    secret = endpoint.set_new_secret()
    endpoint.save()
    response = owner_client.post(
        reverse("dashboard:endpoint-test", kwargs={"pk": endpoint.pk}), follow=True
    )
    got = receiver.received[-1]
    assert signing.verify(secret, got.body, got.headers["X-TruthLens-Signature"])
    assert b'"type":"webhook.test"' in got.body
    item = WebhookDelivery.objects.get(event_type=WebhookDelivery.TEST_EVENT)
    assert item.status == WebhookDelivery.SUCCEEDED
    body = response.content.decode()
    assert "Test event delivered: HTTP 200" in body
    assert "Response body" in body  # the receiver's "ok", in the attempt log


def test_a_failed_test_event_is_not_retried(owner_client, tenant_a, receiver, local_hooks):
    receiver.responses = [503]
    endpoint = WebhookEndpoint(tenant=tenant_a.tenant, url=receiver.url)
    endpoint.set_new_secret()
    endpoint.save()
    response = owner_client.post(
        reverse("dashboard:endpoint-test", kwargs={"pk": endpoint.pk}), follow=True
    )
    item = WebhookDelivery.objects.get(event_type=WebhookDelivery.TEST_EVENT)
    assert item.status == WebhookDelivery.FAILED
    assert "Test event failed: HTTP 503" in response.content.decode()


def test_another_tenants_endpoint_cannot_be_tested(client, owner_b, endpoint_a):
    client.force_login(owner_b)
    response = client.post(reverse("dashboard:endpoint-test", kwargs={"pk": endpoint_a.pk}))
    assert response.status_code == 404
    assert not WebhookDelivery.objects.exists()


def test_the_response_body_is_kept_truncated_and_shown(owner_client, delivery_a):
    WebhookAttempt.objects.filter(delivery=delivery_a).update(
        response_body="<h1>upstream down</h1>"
    )
    page = owner_client.get(reverse("dashboard:delivery", kwargs={"pk": delivery_a.pk}))
    assert "&lt;h1&gt;upstream down&lt;/h1&gt;" in page.content.decode()


def test_the_transport_keeps_only_the_start_of_a_long_answer(tenant_a, local_hooks):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread

    class Big(BaseHTTPRequestHandler):
        def do_POST(self):  # http.server API
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(500)
            self.send_header("Content-Length", str(100_000))
            self.end_headers()
            self.wfile.write(b"x" * 100_000)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Big)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        endpoint = WebhookEndpoint(
            tenant=tenant_a.tenant, url=f"http://127.0.0.1:{server.server_address[1]}/"
        )
        endpoint.set_new_secret()
        endpoint.save()
        delivery = _delivery(endpoint, "evt_big")
        dispatch.attempt_delivery(delivery.pk)
    finally:
        server.shutdown()
        server.server_close()
    attempt = WebhookAttempt.objects.get(delivery=delivery)
    assert attempt.status_code == 500
    assert len(attempt.response_body) == RESPONSE_BODY_BYTES


def test_replaying_to_a_paused_endpoint_warns(owner_client, delivery_a):
    WebhookEndpoint.objects.filter(pk=delivery_a.endpoint_id).update(is_active=False)
    detail = owner_client.get(reverse("dashboard:delivery", kwargs={"pk": delivery_a.pk}))
    assert "This endpoint is paused" in detail.content.decode()
    response = owner_client.post(
        reverse("dashboard:delivery-replay", kwargs={"pk": delivery_a.pk}), follow=True
    )
    assert "This endpoint is paused: the replay is sent anyway" in response.content.decode()


def _delivery(endpoint: WebhookEndpoint, event_id: str) -> WebhookDelivery:
    return WebhookDelivery.objects.create(
        tenant=endpoint.tenant,
        endpoint=endpoint,
        url=endpoint.url,
        event_id=event_id,
        event_type="verification.completed",
        payload=dispatch.event_payload({}, "verification.completed", event_id),
    )
