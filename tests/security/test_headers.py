"""API answers are never stored by a cache (some carry a secret shown once); the API docs
keep working without the dashboard's Content-Security-Policy."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_a_new_webhook_secret_is_not_stored(client_a, settings):
    created = client_a.post(
        "/v1/webhook-endpoints", {"url": "http://127.0.0.1:9/hook"}, format="json"
    )
    assert created.status_code == 201
    assert "secret" in created.json()
    assert "no-store" in created["Cache-Control"]
    rotated = client_a.post(f"/v1/webhook-endpoints/{created.json()['id']}/rotate-secret")
    assert "no-store" in rotated["Cache-Control"]


def test_every_api_answer_is_private_and_not_stored(client_a):
    for response in (client_a.get("/v1/verifications"), client_a.get("/v1/nothing-here")):
        assert "no-store" in response["Cache-Control"]
        assert "camera=()" in response["Permissions-Policy"]


def test_the_api_docs_page_is_left_out_of_the_policy(client):
    response = client.get("/v1/docs")
    assert response.status_code == 200
    assert not response.has_header("Content-Security-Policy")
