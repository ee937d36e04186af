"""The invitee's first visit: the link from the mail opens a page to set a password
(or, with an account already, to sign in) and joins the tenant.

Unknown, used, revoked and expired links answer the same page, so the link
reveals nothing about other invitations. The token sits in the URL: the page
is never cached and sends no Referer to other sites ("same-origin": "no-referrer" would
make the browser send `Origin: null` with the form, which CSRF protection rightly refuses).
"""

from __future__ import annotations

from django import forms
from django.contrib.auth import authenticate, get_user_model, login
from django.contrib.auth.forms import SetPasswordForm
from django.shortcuts import redirect, render
from django.urls import reverse

from tenants import members as actions
from tenants.audit import record
from tenants.models import Invitation

from ..scoping import SESSION_KEY
from . import two_factor

BACKEND = "django.contrib.auth.backends.ModelBackend"


class ExistingAccountForm(forms.Form):
    password = forms.CharField(
        strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "current-password"})
    )


def _private(response):
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "same-origin"
    return response


def _existing_user(email: str):
    return get_user_model().objects.filter(email__iexact=email, is_active=True).order_by("pk")


def _authenticated(request, accounts: list, password: str):
    """The account (of those with the invited address) this password opens, or None."""
    for account in accounts:
        user = authenticate(request, username=account.get_username(), password=password)
        if user is not None:
            return user
    return None


def _welcome(request, invitation: Invitation, user, membership):
    """Signed in as the new member, looking at the tenant, on the setup checklist."""
    # an account with two-factor sign-in is signed in only after its code
    parked = request.user != user and two_factor.has_two_factor(user)
    if request.user != user and not parked:
        login(request, user, backend=BACKEND)
    request.session[SESSION_KEY] = invitation.tenant_id
    details = {"email": invitation.email, "role": membership.role}
    record(request, "member.accepted", membership, tenant=invitation.tenant, details=details)
    if parked:
        return _private(two_factor.park(request, user, reverse("dashboard:setup")))
    return _private(redirect("dashboard:setup"))


def _join(request, invitation: Invitation, user):
    try:
        membership = actions.accept(invitation, user)
    except actions.MemberError:  # used or expired meanwhile
        return _gone(request)
    return _welcome(request, invitation, user, membership)


def _page(request, invitation, **context):
    status = 400 if request.method == "POST" else 200
    return _private(
        render(
            request,
            "dashboard/invitation.html",
            {"invitation": invitation, **context},
            status=status,
        )
    )


def accept(request, token: str):
    invitation = Invitation.find(token)
    if invitation is None:
        return _private(render(request, "dashboard/invitation_invalid.html", status=404))
    if request.user.is_authenticated:
        if request.user.email.lower() != invitation.email.lower():
            return _private(
                render(
                    request,
                    "dashboard/invitation.html",
                    {"invitation": invitation, "wrong_user": True},
                    status=403,
                )
            )
        if request.method == "POST":
            return _join(request, invitation, request.user)
        return _page(request, invitation, signed_in=True)
    accounts = list(_existing_user(invitation.email))
    if accounts:
        form = ExistingAccountForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            user = _authenticated(request, accounts, form.cleaned_data["password"])
            if user is not None:
                return _join(request, invitation, user)
            form.add_error("password", "This is not the password of your account.")
        return _page(request, invitation, form=form, existing=True)
    new_user = get_user_model()(username=invitation.email, email=invitation.email)
    form = SetPasswordForm(new_user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user, membership = actions.accept_as_new_user(
                invitation, form.cleaned_data["new_password1"]
            )
        except actions.MemberError as exc:
            form.add_error(None, str(exc))
        else:
            return _welcome(request, invitation, user, membership)
    return _page(request, invitation, form=form)


def _gone(request):
    return _private(render(request, "dashboard/invitation_invalid.html", status=404))
