"""Member actions: create a tenant with its first owner's invitation, invite, accept,
change a role, remove a member.

Each action owns its transaction. Role rules live here, not in views:
a tenant always keeps one owner, and nobody raises their own role. The
tenant's membership rows are locked while a rule is checked, so two owners
demoting each other at once cannot leave the tenant without one.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import BaseUserManager
from django.db import IntegrityError, transaction
from django.utils import timezone

from .invitations import Invitation
from .models import Membership, Plan, Tenant

RANK = {Membership.VIEWER: 0, Membership.REVIEWER: 1, Membership.ADMIN: 2, Membership.OWNER: 3}


class MemberError(Exception):
    """A member change the rules refuse; the message is shown to the user."""


def normalize_email(email: str) -> str:
    return BaseUserManager.normalize_email(email.strip()).lower()


def is_member(tenant: Tenant, email: str) -> bool:
    return Membership.objects.filter(tenant=tenant, user__email__iexact=email).exists()


def invite(tenant: Tenant, email: str, role: str, invited_by) -> tuple[Invitation, str]:
    """A new invitation (and its token); an earlier pending one for that address is revoked."""
    email = normalize_email(email)
    if role not in RANK:
        raise MemberError(f"unknown role {role!r}")
    if is_member(tenant, email):
        raise MemberError(f"{email} is already a member of {tenant.name}.")
    with transaction.atomic():
        Invitation.objects.pending().filter(tenant=tenant, email__iexact=email).update(
            revoked_at=timezone.now()
        )
        return Invitation.issue(tenant, email, role, invited_by)


def create_tenant(name: str, slug: str, plan: Plan | None, owner_email: str, invited_by):
    """A new tenant and the invitation of its owner: (tenant, invitation, token)."""
    with transaction.atomic():
        tenant = Tenant(slug=slug, name=name, plan=plan)
        tenant.rotate_webhook_secret()
        try:
            with transaction.atomic():
                tenant.save()
        except IntegrityError as exc:
            raise MemberError(f"a tenant with the slug {slug!r} exists") from exc
        invitation, token = invite(tenant, owner_email, Membership.OWNER, invited_by)
    return tenant, invitation, token


def accept(invitation: Invitation, user) -> Membership:
    """Make `user` a member; the invitation is claimed by one conditional UPDATE, so a link
    used twice at once still yields one membership. An existing membership is only raised."""
    with transaction.atomic():
        claimed = (
            Invitation.objects.pending()
            .filter(pk=invitation.pk)
            .update(accepted_at=timezone.now(), accepted_by=user)
        )
        if claimed != 1:
            raise MemberError("This invitation link has expired or has already been used.")
        membership, created = Membership.objects.select_for_update().get_or_create(
            user=user, tenant_id=invitation.tenant_id, defaults={"role": invitation.role}
        )
        if not created and RANK[invitation.role] > RANK[membership.role]:
            membership.role = invitation.role
            membership.save(update_fields=["role"])
    return membership


def accept_as_new_user(invitation: Invitation, password: str):
    """Create the invitee's account (username = e-mail) and accept: (user, membership)."""
    with transaction.atomic():
        try:
            with transaction.atomic():
                user = get_user_model().objects.create_user(
                    username=invitation.email, email=invitation.email, password=password
                )
        except IntegrityError as exc:
            raise MemberError("An account with this address exists: sign in instead.") from exc
        membership = accept(invitation, user)
    return user, membership


def _locked_members(tenant_id: int) -> list[Membership]:
    return list(Membership.objects.select_for_update().filter(tenant_id=tenant_id).order_by("pk"))


def change_role(actor, membership: Membership, role: str) -> tuple[str, str]:
    """Set `membership`'s role; returns (old, new)."""
    if role not in RANK:
        raise MemberError(f"unknown role {role!r}")
    with transaction.atomic():
        members = _locked_members(membership.tenant_id)
        current = next((m for m in members if m.pk == membership.pk), None)
        if current is None:
            raise MemberError("This member has left the tenant.")
        old = current.role
        if current.user_id == getattr(actor, "pk", None) and RANK[role] > RANK[old]:
            raise MemberError("You cannot raise your own role.")
        owners = [m for m in members if m.role == Membership.OWNER]
        if old == Membership.OWNER and role != Membership.OWNER and len(owners) == 1:
            raise MemberError("A tenant keeps at least one owner: make someone else owner first.")
        current.role = role
        current.save(update_fields=["role"])
    membership.role = role
    return old, role


def remove(membership: Membership) -> None:
    """Remove a member (never the last owner)."""
    with transaction.atomic():
        members = _locked_members(membership.tenant_id)
        owners = [m for m in members if m.role == Membership.OWNER]
        if any(m.pk == membership.pk for m in owners) and len(owners) == 1:
            raise MemberError("A tenant keeps at least one owner: make someone else owner first.")
        Membership.objects.filter(pk=membership.pk).delete()
