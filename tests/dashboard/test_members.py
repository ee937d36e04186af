"""Member roles: owners manage, everyone reads, a tenant keeps an owner, nobody self-escalates."""

from __future__ import annotations

import pytest

from tenants import members
from tenants.invitations import Invitation
from tenants.models import Membership, Tenant

from .conftest import member

pytestmark = pytest.mark.django_db


def _membership(user):
    return Membership.objects.get(user=user)


def test_every_role_sees_the_member_list_with_roles(client, owner_a, admin_a, viewer_a):
    client.force_login(viewer_a)
    page = client.get("/dashboard/members/").content.decode()
    assert "owner-a" in page
    assert "admin-a" in page
    assert "viewer-a" in page
    assert "Send invitation" not in page  # viewers do not manage


def test_only_owners_invite_change_and_remove(client, owner_a, admin_a, viewer_a):
    client.force_login(admin_a)
    target = _membership(viewer_a)
    assert client.post("/dashboard/members/", {"email": "z@example.com"}).status_code == 403
    assert (
        client.post(f"/dashboard/members/{target.pk}/role/", {"role": "admin"}).status_code == 403
    )
    assert client.post(f"/dashboard/members/{target.pk}/remove/").status_code == 403
    assert _membership(viewer_a).role == "viewer"
    assert not Invitation.objects.exists()


def test_an_owner_changes_a_role_and_removes_a_member(client, owner_a, admin_a, viewer_a):
    client.force_login(owner_a)
    client.post(f"/dashboard/members/{_membership(viewer_a).pk}/role/", {"role": "admin"})
    assert _membership(viewer_a).role == "admin"
    client.post(f"/dashboard/members/{_membership(admin_a).pk}/remove/")
    assert not Membership.objects.filter(user=admin_a).exists()


def test_the_last_owner_can_be_neither_demoted_nor_removed(client, owner_a):
    client.force_login(owner_a)
    own = _membership(owner_a)

    demoted = client.post(f"/dashboard/members/{own.pk}/role/", {"role": "viewer"}, follow=True)
    client.post(f"/dashboard/members/{own.pk}/remove/")

    assert "keeps at least one owner" in demoted.content.decode()
    assert _membership(owner_a).role == "owner"


def test_an_owner_may_step_down_once_another_owner_exists(owner_a, tenant_a):
    second = member(tenant_a.tenant, "owner-2", Membership.OWNER)
    members.change_role(owner_a, _membership(owner_a), "admin")
    assert _membership(owner_a).role == "admin"
    with pytest.raises(members.MemberError, match="at least one owner"):
        members.remove(_membership(second))


def test_nobody_raises_their_own_role(admin_a):
    with pytest.raises(members.MemberError, match="your own role"):
        members.change_role(admin_a, _membership(admin_a), "owner")
    assert _membership(admin_a).role == "admin"


def test_another_tenants_member_is_not_found(client, owner_a, owner_b):
    client.force_login(owner_a)
    foreign = _membership(owner_b)
    assert (
        client.post(f"/dashboard/members/{foreign.pk}/role/", {"role": "viewer"}).status_code == 404
    )
    assert client.post(f"/dashboard/members/{foreign.pk}/remove/").status_code == 404
    assert _membership(owner_b).role == "owner"


def test_an_owner_cannot_invite_another_owner_but_staff_can(client, owner_a, staff_user, tenant_a):
    client.force_login(owner_a)
    answer = client.post("/dashboard/members/", {"email": "o@example.com", "role": "owner"})
    assert answer.status_code == 400
    assert not Invitation.objects.exists()
    client.force_login(staff_user)
    client.post("/dashboard/tenant/", {"tenant": tenant_a.tenant.pk})
    client.post("/dashboard/members/", {"email": "o@example.com", "role": "owner"})
    assert Invitation.objects.get().role == "owner"


def test_staff_create_a_tenant_and_invite_its_owner(client, staff_user, plan, mailoutbox):
    client.force_login(staff_user)
    data = {"name": "Acme", "slug": "acme", "plan": plan.pk, "owner_email": "boss@acme.test"}

    answer = client.post("/dashboard/tenants/new/", data)

    assert answer.status_code == 302
    tenant = Tenant.objects.get(slug="acme")
    assert tenant.plan == plan
    assert tenant.webhook_secret_encrypted
    invitation = Invitation.objects.get(tenant=tenant)
    assert invitation.role == "owner"
    assert invitation.email == "boss@acme.test"
    assert mailoutbox[0].to == ["boss@acme.test"]
    assert client.post("/dashboard/tenants/new/", data).status_code == 400  # slug taken


def test_the_new_tenant_page_is_for_staff_only(client, owner_a):
    client.force_login(owner_a)
    assert client.get("/dashboard/tenants/new/").status_code == 403
    data = {"name": "Acme", "slug": "acme", "owner_email": "boss@acme.test"}
    assert client.post("/dashboard/tenants/new/", data).status_code == 403
    assert not Tenant.objects.filter(slug="acme").exists()


def test_staff_without_any_tenant_can_create_the_first(client, staff_user, mailoutbox):
    Tenant.objects.all().delete()
    client.force_login(staff_user)
    assert client.get("/dashboard/tenants/new/").status_code == 200
    data = {"name": "First", "slug": "first", "owner_email": "boss@first.test"}
    assert client.post("/dashboard/tenants/new/", data).status_code == 302
    assert Tenant.objects.get().plan is None  # the plan is optional
