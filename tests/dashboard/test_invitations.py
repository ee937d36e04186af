"""Invitation links: hashed at rest, one-time, expiring, and good for one tenant only."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from tenants import members
from tenants.invitations import Invitation, hash_token
from tenants.models import Membership

from .conftest import PASSWORD, make_user

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "an-unusual-passphrase-42"


def _link_path(mail) -> str:
    return re.search(r"https?://[^/\s]+(/dashboard/invitations/[^/\s]+/)", mail.body).group(1)


def _invite(client, owner, email="new@example.com", role="viewer"):
    client.force_login(owner)
    answer = client.post("/dashboard/members/", {"email": email, "role": role})
    assert answer.status_code == 303  # then the members page shows the link once
    client.logout()


def test_an_owner_invites_by_mail_and_only_the_hash_is_stored(client, owner_a, mailoutbox):
    _invite(client, owner_a, "New@Example.com", "admin")

    assert len(mailoutbox) == 1
    mail = mailoutbox[0]
    assert mail.to == ["new@example.com"]
    token = _link_path(mail).rstrip("/").rsplit("/", 1)[1]
    invitation = Invitation.objects.get()
    assert invitation.token_hash == hash_token(token)
    assert token not in str(Invitation.objects.values().get())  # no column holds the token
    assert invitation.role == "admin"
    assert invitation.invited_by == owner_a


def test_the_invitee_sets_a_password_and_the_link_then_stops_working(
    client, owner_a, tenant_a, mailoutbox
):
    _invite(client, owner_a)
    path = _link_path(mailoutbox[0])

    page = client.get(path)
    assert page.status_code == 200
    assert page["Cache-Control"] == "no-store"
    assert page["Referrer-Policy"] == "same-origin"  # the token never leaves in a Referer
    weak = client.post(path, {"new_password1": "123", "new_password2": "123"})
    assert weak.status_code == 400  # Django's password validators apply
    assert not get_user_model().objects.filter(email="new@example.com").exists()

    accepted = client.post(path, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})

    assert accepted.status_code == 302
    assert accepted["Location"] == "/dashboard/setup/"
    user = get_user_model().objects.get(email="new@example.com")
    assert user.check_password(NEW_PASSWORD)
    assert Membership.objects.get(user=user).tenant == tenant_a.tenant
    assert client.get("/dashboard/setup/").status_code == 200  # signed in
    client.logout()
    again = client.post(path, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert again.status_code == 404  # one-time
    assert Membership.objects.filter(user=user).count() == 1


def test_an_expired_link_does_not_work(client, owner_a, mailoutbox):
    _invite(client, owner_a)
    Invitation.objects.update(expires_at=timezone.now() - dt.timedelta(seconds=1))

    answer = client.get(_link_path(mailoutbox[0]))

    assert answer.status_code == 404
    assert "does not work" in answer.content.decode()


def test_an_unknown_token_answers_like_a_used_one(client, db):
    assert client.get("/dashboard/invitations/not-a-real-token/").status_code == 404


def test_accepting_joins_only_the_invitations_tenant(client, owner_a, tenant_a, tenant_b):
    invitation, token = members.invite(tenant_a.tenant, "x@example.com", "admin", owner_a)
    client.post(
        f"/dashboard/invitations/{token}/",
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    user = get_user_model().objects.get(email="x@example.com")
    assert list(Membership.objects.filter(user=user).values_list("tenant", "role")) == [
        (tenant_a.tenant.pk, "admin")
    ]


def test_an_owner_of_another_tenant_cannot_revoke_it(client, owner_a, owner_b, tenant_a):
    invitation, _ = members.invite(tenant_a.tenant, "x@example.com", "viewer", owner_a)
    client.force_login(owner_b)

    answer = client.post(f"/dashboard/members/invitations/{invitation.pk}/revoke/")

    assert answer.status_code == 404
    invitation.refresh_from_db()
    assert invitation.revoked_at is None


def test_a_revoked_invitation_does_not_work(client, owner_a, tenant_a):
    invitation, token = members.invite(tenant_a.tenant, "x@example.com", "viewer", owner_a)
    client.force_login(owner_a)
    client.post(f"/dashboard/members/invitations/{invitation.pk}/revoke/")
    client.logout()
    assert client.get(f"/dashboard/invitations/{token}/").status_code == 404


def test_an_existing_user_signs_in_to_accept_and_keeps_their_password(
    client, owner_a, owner_b, tenant_a
):
    # owner-b already has an account (and a tenant); owner-a invites them.
    _, token = members.invite(tenant_a.tenant, owner_b.email, "viewer", owner_a)
    path = f"/dashboard/invitations/{token}/"

    wrong = client.post(path, {"password": "not-it"})
    assert wrong.status_code == 400
    accepted = client.post(path, {"password": PASSWORD})

    assert accepted.status_code == 302
    owner_b.refresh_from_db()
    assert owner_b.check_password(PASSWORD)
    assert set(Membership.objects.filter(user=owner_b).values_list("role", flat=True)) == {
        "owner",
        "viewer",
    }


def test_a_signed_in_user_cannot_take_someone_elses_invitation(client, owner_a, tenant_a):
    other = make_user("other")
    _, token = members.invite(tenant_a.tenant, "x@example.com", "admin", owner_a)
    client.force_login(other)

    assert client.post(f"/dashboard/invitations/{token}/").status_code == 403
    assert not Membership.objects.filter(user=other).exists()


def test_a_second_acceptance_of_the_same_invitation_is_refused(owner_a, tenant_a):
    invitation, _ = members.invite(tenant_a.tenant, "x@example.com", "admin", owner_a)
    first, second = make_user("first"), make_user("second")
    members.accept(invitation, first)
    with pytest.raises(members.MemberError):
        members.accept(invitation, second)
    assert not Membership.objects.filter(user=second).exists()


def test_inviting_a_member_again_is_refused(client, owner_a, admin_a):
    client.force_login(owner_a)
    answer = client.post("/dashboard/members/", {"email": admin_a.email, "role": "viewer"})
    assert answer.status_code == 400
    assert "already a member" in answer.content.decode()
    assert not Invitation.objects.exists()


def test_a_mail_server_that_refuses_leaves_the_invitation_and_says_so(client, owner_a, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 2
    client.force_login(owner_a)

    data = {"email": "x@example.com", "role": "viewer"}
    answer = client.post("/dashboard/members/", data, follow=True)

    assert "could not be sent" in answer.content.decode()
    assert Invitation.objects.pending().filter(email="x@example.com").exists()
