"""Rotating an endpoint's secret through the API keeps the old one signing for the overlap
window, as the dashboard's rotation does (docs/api.md "Webhooks")."""

from __future__ import annotations

import pytest

from tenants.models import WebhookEndpoint

pytestmark = pytest.mark.django_db


def _endpoint(client) -> dict:
    return client.post(
        "/v1/webhook-endpoints", {"url": "http://127.0.0.1:9/hook"}, format="json"
    ).json()


def test_the_old_secret_keeps_signing_after_an_api_rotation(client_a, settings):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "WEBHOOK_SECRET_OVERLAP_SECONDS": 86400}
    created = _endpoint(client_a)
    new = client_a.post(f"/v1/webhook-endpoints/{created['id']}/rotate-secret").json()["secret"]
    endpoint = WebhookEndpoint.objects.get(pk=created["id"])
    assert endpoint.signing_secrets() == [new, created["secret"]]


def test_no_overlap_retires_the_old_secret_at_once(client_a, settings):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "WEBHOOK_SECRET_OVERLAP_SECONDS": 0}
    created = _endpoint(client_a)
    new = client_a.post(f"/v1/webhook-endpoints/{created['id']}/rotate-secret").json()["secret"]
    assert WebhookEndpoint.objects.get(pk=created["id"]).signing_secrets() == [new]
