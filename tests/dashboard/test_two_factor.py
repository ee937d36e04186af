"""Optional TOTP two-factor sign-in for owners (django-otp)."""

from __future__ import annotations

import re
import time

import pytest
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice

from tenants.audit import AuditEvent

from .conftest import PASSWORD

pytestmark = pytest.mark.django_db


def _code(device: TOTPDevice, steps_ahead: int = 0) -> str:
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    totp.time = time.time() + steps_ahead * device.step
    return f"{totp.token():0{device.digits}d}"


@pytest.fixture
def two_factor_owner(client, owner_a):
    """owner-a with two-factor turned on from the page (then signed out)."""
    client.force_login(owner_a)
    page = client.get("/dashboard/account/two-factor/")
    assert page.status_code == 200
    assert re.search(rb"data:image/svg\+xml", page.content)
    device = TOTPDevice.objects.get(user=owner_a)
    turned_on = client.post("/dashboard/account/two-factor/", {"code": _code(device)})
    assert turned_on.status_code == 302
    client.logout()
    return owner_a


def test_an_owner_turns_two_factor_on_and_it_is_audited(two_factor_owner):
    assert TOTPDevice.objects.get(user=two_factor_owner).confirmed
    assert AuditEvent.objects.filter(action="two_factor.enabled").count() == 1


def test_a_wrong_code_does_not_turn_it_on(client, owner_a):
    client.force_login(owner_a)
    client.get("/dashboard/account/two-factor/")
    refused = client.post("/dashboard/account/two-factor/", {"code": "000000"})
    assert refused.status_code == 200
    assert b"does not match" in refused.content
    assert not TOTPDevice.objects.get(user=owner_a).confirmed


def test_the_password_alone_no_longer_signs_in(client, two_factor_owner):
    # when the right password is given
    response = client.post("/dashboard/login/", {"username": "owner-a", "password": PASSWORD})
    # then a code is asked for, and nothing is signed in yet
    assert response["Location"] == "/dashboard/login/code/"
    assert "_auth_user_id" not in client.session
    assert client.get("/dashboard/").status_code == 302
    # a wrong code is refused
    assert client.post("/dashboard/login/code/", {"code": "123456"}).status_code == 200
    assert "_auth_user_id" not in client.session
    time.sleep(1.1)  # django-otp slows the next guess after a wrong code
    # the current code signs in (one step ahead: the code that turned it on is spent)
    device = TOTPDevice.objects.get(user=two_factor_owner)
    signed_in = client.post("/dashboard/login/code/", {"code": _code(device, 1)})
    assert signed_in["Location"] == "/dashboard/"
    assert client.session["_auth_user_id"] == str(two_factor_owner.pk)
    assert client.get("/dashboard/").status_code == 200


def test_wrong_codes_lock_the_account_like_wrong_passwords(client, two_factor_owner, settings):
    settings.AXES_FAILURE_LIMIT = 3
    client.post("/dashboard/login/", {"username": "owner-a", "password": PASSWORD})
    statuses = [
        client.post("/dashboard/login/code/", {"code": "111111"}).status_code for _ in range(3)
    ]
    assert statuses == [200, 200, 429]
    device = TOTPDevice.objects.get(user=two_factor_owner)
    client.post("/dashboard/login/code/", {"code": _code(device, 1)})
    assert "_auth_user_id" not in client.session


def test_the_code_page_without_a_password_first_goes_back_to_sign_in(client):
    assert client.get("/dashboard/login/code/")["Location"] == "/dashboard/login/"


def test_turning_it_off_needs_a_current_code(client, two_factor_owner):
    client.force_login(two_factor_owner)
    assert client.post("/dashboard/account/two-factor/", {"code": "000000"}).status_code == 200
    assert TOTPDevice.objects.filter(user=two_factor_owner, confirmed=True).exists()
    time.sleep(1.1)  # django-otp slows the next guess after a wrong code
    device = TOTPDevice.objects.get(user=two_factor_owner)
    client.post("/dashboard/account/two-factor/", {"code": _code(device, 1)})
    assert not TOTPDevice.objects.filter(user=two_factor_owner).exists()
    assert AuditEvent.objects.filter(action="two_factor.disabled").count() == 1
    client.logout()
    assert (
        client.post("/dashboard/login/", {"username": "owner-a", "password": PASSWORD})["Location"]
        == "/dashboard/"
    )


def test_only_owners_have_the_page(client, viewer_a, owner_a):
    client.force_login(viewer_a)
    assert client.get("/dashboard/account/two-factor/").status_code == 403
    assert b"Two-factor sign-in" not in client.get("/dashboard/").content
    client.force_login(owner_a)
    assert b"Two-factor sign-in" in client.get("/dashboard/").content


def test_accepting_an_invitation_with_the_password_still_asks_for_the_code(
    client, two_factor_owner, owner_b, tenant_b
):
    # given owner-a (two-factor on) invited to tenant B
    from tenants import members

    _, token = members.invite(tenant_b.tenant, two_factor_owner.email, "viewer", owner_b)
    # when the invitation is accepted with the password
    accepted = client.post(f"/dashboard/invitations/{token}/", {"password": PASSWORD})
    # then the membership exists, but signing in waits for the code
    assert accepted["Location"] == "/dashboard/login/code/"
    assert "_auth_user_id" not in client.session
    device = TOTPDevice.objects.get(user=two_factor_owner)
    done = client.post("/dashboard/login/code/", {"code": _code(device, 1)})
    assert done["Location"] == "/dashboard/setup/"
    assert client.session["_auth_user_id"] == str(two_factor_owner.pk)
