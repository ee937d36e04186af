"""Members: everyone sees the list; owners (and staff) invite, change roles and remove."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from tenants import members as actions
from tenants.audit import record
from tenants.models import Invitation, Membership

from .. import one_time
from ..invitation_mail import invitation_link, send_invitation
from ..scoping import STAFF_ROLE, tenant_view

LINK_KIND = "invitation-link"

ROLE_CHOICES = [
    (Membership.OWNER, "owner"),
    (Membership.ADMIN, "admin"),
    (Membership.REVIEWER, "reviewer"),
    (Membership.VIEWER, "viewer"),
]


def can_manage(scope) -> bool:
    return scope.role in (Membership.OWNER, STAFF_ROLE)


def _manager(scope) -> None:
    if not can_manage(scope):
        raise PermissionDenied


class InviteForm(forms.Form):
    email = forms.EmailField()
    role = forms.ChoiceField(choices=ROLE_CHOICES[1:], initial=Membership.VIEWER)

    def __init__(self, *args, staff: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if staff:  # staff may invite further owners; owners promote members instead
            self.fields["role"].choices = ROLE_CHOICES


def _keep_link(request, invitation: Invitation, token: str) -> None:
    """Show the link once, after the redirect, with a Copy button (only its hash is stored)."""
    one_time.keep(
        request, LINK_KIND, invitation_link(token), invitation.tenant_id, email=invitation.email
    )


def invite_and_mail(request, tenant, email: str, role: str) -> Invitation:
    """Invite, record and mail the link; `MemberError` when the rules refuse the invitation."""
    invitation, token = actions.invite(tenant, email, role, request.user)
    record(
        request,
        "member.invited",
        invitation,
        tenant=tenant,
        details={"email": invitation.email, "role": role},
    )
    _keep_link(request, invitation, token)
    if send_invitation(invitation, token, request.user.get_username()):
        messages.success(request, f"Invitation sent to {invitation.email}.")
    else:
        messages.warning(
            request,
            f"The mail to {invitation.email} could not be sent; copy the link below and "
            "send it yourself, or resend it later.",
        )
    return invitation


@tenant_view(edit=True)
def members(request, scope):
    form = InviteForm(request.POST or None, staff=scope.is_staff)
    if request.method == "POST":
        _manager(scope)
        if form.is_valid():
            try:
                invite_and_mail(
                    request, scope.tenant, form.cleaned_data["email"], form.cleaned_data["role"]
                )
            except actions.MemberError as exc:
                form.add_error("email", str(exc))
            else:
                return one_time.see_other(reverse("dashboard:members"))
    listing = scope.filter(Membership.objects.select_related("user")).order_by("user__username")
    pending = (
        scope.filter(Invitation.objects.pending()) if scope.can_edit else Invitation.objects.none()
    )
    shown = one_time.take(request, LINK_KIND, scope.tenant.pk) if request.method == "GET" else None
    response = render(
        request,
        "dashboard/members.html",
        {
            "nav": "members",
            "members": listing,
            "pending": pending,
            "form": form,
            "can_manage": can_manage(scope),
            "roles": ROLE_CHOICES,
            "link": shown,
        },
        status=400 if request.method == "POST" else 200,
    )
    return one_time.no_store(response) if shown else response


@require_POST
@tenant_view(edit=True)
def change_role(request, scope, pk: int):
    _manager(scope)
    membership = scope.get_or_404(Membership.objects.select_related("user"), pk=pk)
    try:
        old, new = actions.change_role(request.user, membership, request.POST.get("role", ""))
    except actions.MemberError as exc:
        messages.error(request, str(exc))
    else:
        if old != new:
            record(
                request,
                "member.role_changed",
                membership,
                details={"user": membership.user.get_username(), "from": old, "to": new},
            )
            messages.success(request, f"{membership.user.get_username()} is now {new}.")
    return redirect("dashboard:members")


@require_POST
@tenant_view(edit=True)
def remove(request, scope, pk: int):
    _manager(scope)
    membership = scope.get_or_404(Membership.objects.select_related("user"), pk=pk)
    try:
        actions.remove(membership)
    except actions.MemberError as exc:
        messages.error(request, str(exc))
    else:
        record(
            request,
            "member.removed",
            membership,
            details={"user": membership.user.get_username(), "role": membership.role},
        )
        messages.success(request, f"{membership.user.get_username()} no longer has access.")
    return redirect("dashboard:members")


@require_POST
@tenant_view(edit=True)
def revoke_invitation(request, scope, pk: int):
    _manager(scope)
    invitation = scope.get_or_404(Invitation.objects.pending(), pk=pk)
    invitation.revoke()
    record(request, "member.invitation_revoked", invitation, details={"email": invitation.email})
    messages.success(request, f"The invitation of {invitation.email} no longer works.")
    return redirect("dashboard:members")


@require_POST
@tenant_view(edit=True)
def renew_invitation(request, scope, pk: int, mail: bool):
    """A new link for a pending invitation (the old one stops working), shown once to copy;
    with `mail`, sent to the invitee again too ("Resend")."""
    _manager(scope)
    invitation = scope.get_or_404(Invitation.objects.pending().select_related("tenant"), pk=pk)
    token = invitation.renew()
    if token is None:  # accepted or revoked meanwhile
        messages.error(request, f"The invitation of {invitation.email} is no longer pending.")
        return redirect("dashboard:members")
    mailed = mail and send_invitation(invitation, token, request.user.get_username())
    record(
        request,
        "member.invitation_renewed",
        invitation,
        details={"email": invitation.email, "mailed": mailed},
    )
    _keep_link(request, invitation, token)
    if mailed:
        messages.success(request, f"A new link was sent to {invitation.email}.")
    elif mail:
        messages.warning(request, f"The mail to {invitation.email} could not be sent.")
    return one_time.see_other(reverse("dashboard:members"))


def resend_invitation(request, pk: int):
    return renew_invitation(request, pk=pk, mail=True)


def invitation_link_page(request, pk: int):
    return renew_invitation(request, pk=pk, mail=False)
