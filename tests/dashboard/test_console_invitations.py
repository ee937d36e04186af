"""Invitation links from the members page: shown once to copy, renewed by "New link" and
"Resend" (the old link stops working), revoked; owners and staff only, own tenant only."""

from __future__ import annotations

import re

import pytest

from tenants import members
from tenants.audit import AuditEvent
from tenants.invitations import Invitation, hash_token

pytestmark = pytest.mark.django_db

LINK = re.compile(r"https?://[^/\s<\"]+/dashboard/invitations/([A-Za-z0-9_\-]+)/")


def _shown_token(page) -> str:
    assert page.status_code == 200
    assert page["Cache-Control"] == "no-store"
    link = page.context["link"]["secret"]
    assert link in page.content.decode()
    return LINK.match(link).group(1)


def test_inviting_shows_the_link_once_and_it_is_the_mailed_one(client, owner_a, mailoutbox):
    client.force_login(owner_a)
    posted = client.post("/dashboard/members/", {"email": "new@example.com", "role": "viewer"})
    assert posted.status_code == 303
    token = _shown_token(client.get(posted["Location"]))
    assert token in mailoutbox[0].body
    assert Invitation.objects.get().token_hash == hash_token(token)
    again = client.get("/dashboard/members/")
    assert again.context["link"] is None
    assert token not in again.content.decode()


def test_new_link_replaces_the_old_one_without_mail(client, owner_a, tenant_a, mailoutbox):
    invitation, old = members.invite(tenant_a.tenant, "x@example.com", "viewer", owner_a)
    client.force_login(owner_a)
    posted = client.post(f"/dashboard/members/invitations/{invitation.pk}/link/")
    assert posted.status_code == 303
    new = _shown_token(client.get(posted["Location"]))
    assert new != old
    assert mailoutbox == []
    assert Invitation.find(old) is None
    assert Invitation.find(new).pk == invitation.pk
    event = AuditEvent.objects.get(action="member.invitation_renewed")
    assert event.details == {"email": "x@example.com", "mailed": False}
    client.logout()
    assert client.get(f"/dashboard/invitations/{old}/").status_code == 404
    assert client.get(f"/dashboard/invitations/{new}/").status_code == 200


def test_resend_mails_a_fresh_link(client, owner_a, tenant_a, mailoutbox):
    invitation, old = members.invite(tenant_a.tenant, "x@example.com", "admin", owner_a)
    client.force_login(owner_a)
    posted = client.post(f"/dashboard/members/invitations/{invitation.pk}/resend/")
    new = _shown_token(client.get(posted["Location"]))
    assert len(mailoutbox) == 1
    assert mailoutbox[0].to == ["x@example.com"]
    assert new in mailoutbox[0].body
    assert old not in mailoutbox[0].body
    assert AuditEvent.objects.get(action="member.invitation_renewed").details["mailed"] is True


def test_staff_renew_too(client, owner_a, staff_user, tenant_a, mailoutbox):
    invitation, _ = members.invite(tenant_a.tenant, "x@example.com", "viewer", owner_a)
    client.force_login(staff_user)
    client.post("/dashboard/tenant/", {"tenant": tenant_a.tenant.pk})
    posted = client.post(f"/dashboard/members/invitations/{invitation.pk}/resend/")
    assert posted.status_code == 303
    assert len(mailoutbox) == 1


@pytest.mark.parametrize("action", ["link", "resend"])
def test_admins_and_viewers_are_refused(client, owner_a, admin_a, viewer_a, tenant_a, action):
    invitation, token = members.invite(tenant_a.tenant, "x@example.com", "viewer", owner_a)
    for user in (admin_a, viewer_a):
        client.force_login(user)
        answer = client.post(f"/dashboard/members/invitations/{invitation.pk}/{action}/")
        assert answer.status_code == 403
    assert Invitation.find(token) is not None  # the link still works: nothing was renewed


@pytest.mark.parametrize("action", ["link", "resend", "revoke"])
def test_another_tenants_invitation_answers_404(client, owner_a, owner_b, tenant_a, action):
    invitation, token = members.invite(tenant_a.tenant, "x@example.com", "viewer", owner_a)
    client.force_login(owner_b)
    answer = client.post(f"/dashboard/members/invitations/{invitation.pk}/{action}/")
    assert answer.status_code == 404
    assert Invitation.find(token) is not None


def test_a_used_or_revoked_invitation_cannot_be_renewed(client, owner_a, tenant_a):
    invitation, _ = members.invite(tenant_a.tenant, "x@example.com", "viewer", owner_a)
    invitation.revoke()
    client.force_login(owner_a)
    assert client.post(f"/dashboard/members/invitations/{invitation.pk}/link/").status_code == 404
    assert client.get(f"/dashboard/members/invitations/{invitation.pk}/link/").status_code == 405


def test_the_members_page_offers_the_buttons_to_owners_only(client, owner_a, admin_a, tenant_a):
    members.invite(tenant_a.tenant, "x@example.com", "viewer", owner_a)
    client.force_login(owner_a)
    html = client.get("/dashboard/members/").content.decode()
    for label in ("New link for x@example.com", "Resend to x@example.com"):
        assert label in html
    client.force_login(admin_a)
    assert "Resend to" not in client.get("/dashboard/members/").content.decode()
