"""API key guessing is throttled per client address (the dashboard's: tests/dashboard/test_signin_lockout.py)."""

from __future__ import annotations

import time

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

BAD = "Bearer tl_abcdefgh_" + "x" * 32


@pytest.fixture
def small_limits(settings):
    settings.TRUTHLENS = {
        **settings.TRUTHLENS,
        "BAD_KEY_LIMIT": 5,
        "BAD_KEY_WINDOW_SECONDS": 60,
        "BAD_KEY_LOCKOUT_SECONDS": 2,
    }


def _get(headers: dict, address: str = "127.0.0.1"):
    return APIClient().get("/v1/verifications", REMOTE_ADDR=address, **headers)


def test_bad_keys_lock_the_address_out_with_429_and_retry_after(tenant_a, small_limits):
    # given five bad keys from one address, each a plain 401
    for _ in range(5):
        assert _get({"HTTP_AUTHORIZATION": BAD}).status_code == 401
    # when the address sends a sixth request, even with a valid key
    locked = _get({"HTTP_AUTHORIZATION": f"Bearer {tenant_a.token}"})
    # then it is refused before the key is looked at, as problem+json with Retry-After
    assert locked.status_code == 429
    assert locked["Content-Type"] == "application/problem+json"
    assert 1 <= int(locked["Retry-After"]) <= 2
    assert locked.json()["status"] == 429
    # another address is not affected
    assert _get({"HTTP_AUTHORIZATION": f"Bearer {tenant_a.token}"}, "10.9.8.7").status_code == 200


def test_the_api_lock_expires(tenant_a, small_limits):
    for _ in range(5):
        _get({"HTTP_AUTHORIZATION": BAD})
    assert _get({"HTTP_AUTHORIZATION": f"Bearer {tenant_a.token}"}).status_code == 429
    time.sleep(2.2)
    assert _get({"HTTP_AUTHORIZATION": f"Bearer {tenant_a.token}"}).status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        {},  # no key at all
        {"HTTP_AUTHORIZATION": "Basic dXNlcjpwdw=="},  # the wrong scheme
        {"HTTP_AUTHORIZATION": "Bearer not-a-key"},  # malformed
    ],
)
def test_every_kind_of_failed_authentication_counts(tenant_a, small_limits, headers):
    for _ in range(5):
        assert _get(headers).status_code == 401
    assert _get(headers).status_code == 429


def test_bad_x_api_keys_count_on_the_anthropic_gateway(tenant_a, small_limits):
    client = APIClient()
    for _ in range(5):
        assert (
            client.post("/v1/messages", {}, format="json", HTTP_X_API_KEY="tl_x_y").status_code
            == 401
        )
    assert (
        client.post("/v1/messages", {}, format="json", HTTP_X_API_KEY="tl_x_y").status_code == 429
    )


def test_good_keys_never_count(tenant_a, small_limits):
    for _ in range(10):
        assert _get({"HTTP_AUTHORIZATION": f"Bearer {tenant_a.token}"}).status_code == 200
