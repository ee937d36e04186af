"""Dashboard password guessing is locked out per account and per client address (django-axes)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from tenants.audit import AuditEvent

from .conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def short_lock(settings):
    settings.AXES_FAILURE_LIMIT = 5
    settings.AXES_COOLOFF_TIME = timedelta(seconds=2)


def _sign_in(client, username: str, password: str, address: str = "127.0.0.1"):
    return client.post(
        "/dashboard/login/", {"username": username, "password": password}, REMOTE_ADDR=address
    )


def test_wrong_passwords_lock_the_account_and_the_lock_is_audited(client, owner_a, short_lock):
    # given five wrong passwords for one account, each from its own address
    for n in range(4):
        assert _sign_in(client, "owner-a", "wrong", f"10.0.0.{n + 1}").status_code == 200
    assert _sign_in(client, "owner-a", "wrong", "10.0.0.5").status_code == 429  # the fifth locks
    # when the right password comes, from yet another address
    locked = _sign_in(client, "owner-a", PASSWORD, "10.0.1.1")
    # then it is refused: 429, a Retry-After, and no session
    assert locked.status_code == 429
    assert locked["Retry-After"] == "2"
    assert b"Too many sign-in attempts" in locked.content
    assert "_auth_user_id" not in client.session
    # and the tenant's audit log says so, once
    events = AuditEvent.objects.filter(action="signin.locked_out")
    assert [e.tenant_id for e in events] == [owner_a.memberships.get().tenant_id]
    assert events[0].details["username"] == "owner-a"


def test_the_sign_in_lock_expires(client, owner_a, short_lock):
    for _ in range(5):
        _sign_in(client, "owner-a", "wrong")
    assert _sign_in(client, "owner-a", PASSWORD).status_code == 429
    time.sleep(2.2)
    signed_in = _sign_in(client, "owner-a", PASSWORD)
    assert signed_in.status_code == 302
    assert client.session["_auth_user_id"] == str(owner_a.pk)


def test_one_address_guessing_many_accounts_is_locked(client, owner_a, short_lock):
    # given five failures from one address, each against a different account name
    for n in range(5):
        _sign_in(client, f"someone-{n}@example.com", "wrong", "10.0.0.9")
    # then a real account cannot be signed into from that address
    assert _sign_in(client, "owner-a", PASSWORD, "10.0.0.9").status_code == 429
    # but can from another
    assert _sign_in(client, "owner-a", PASSWORD, "10.0.0.10").status_code == 302


def test_a_success_clears_the_failures(client, owner_a, short_lock):
    for _ in range(4):
        _sign_in(client, "owner-a", "wrong")
    assert _sign_in(client, "owner-a", PASSWORD).status_code == 302
    client.logout()
    for _ in range(4):
        _sign_in(client, "owner-a", "wrong")
    assert _sign_in(client, "owner-a", PASSWORD).status_code == 302
