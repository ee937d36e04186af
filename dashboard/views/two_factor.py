"""Optional TOTP two-factor sign-in for owners (django-otp).

An owner turns it on from "Two-factor sign-in": the page shows a fresh secret (QR code and
text) and turns it on only once a code from the app matches. From then on the password alone
does not sign in: `LoginView` parks the account in the session and asks for the code here.
A wrong code counts as a failed sign-in (django-axes locks the account as for passwords),
and django-otp's own throttle slows each further guess. Turning it off needs a current code.
"""

from __future__ import annotations

import base64

import segno
from axes.handlers.proxy import AxesProxyHandler
from django import forms
from django.contrib.auth import get_user_model, login
from django.contrib.auth.signals import user_login_failed
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django_otp import devices_for_user, match_token
from django_otp import login as otp_login
from django_otp.plugins.otp_totp.models import TOTPDevice

from tenants.audit import record
from tenants.models import Membership

from ..scoping import tenant_view

PENDING = "dashboard_2fa_pending"  # session: the account waiting for its code, and where next


class CodeForm(forms.Form):
    code = forms.CharField(
        label="Code from your authenticator app",
        min_length=6,
        max_length=8,
        widget=forms.TextInput(
            attrs={"autocomplete": "one-time-code", "inputmode": "numeric", "autofocus": True}
        ),
    )


def has_two_factor(user) -> bool:
    return any(True for _ in devices_for_user(user, confirmed=True))


def park(request, user, next_url: str):
    """The password was right and the account has a second factor: ask for the code."""
    request.session[PENDING] = {"user": user.pk, "backend": user.backend, "next": next_url}
    return redirect("dashboard:login-code")


def login_code(request):
    pending = request.session.get(PENDING)
    if not pending:
        return redirect("dashboard:login")
    user = get_user_model().objects.filter(pk=pending["user"], is_active=True).first()
    if user is None:
        del request.session[PENDING]
        return redirect("dashboard:login")
    credentials = {"username": user.get_username()}
    if not AxesProxyHandler.is_allowed(request, credentials):
        del request.session[PENDING]
        return redirect("dashboard:login")  # the sign-in page answers 429 while locked
    form = CodeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        device = match_token(user, form.cleaned_data["code"].strip())
        if device is not None:
            del request.session[PENDING]
            login(request, user, backend=pending["backend"])
            otp_login(request, device)
            target = pending["next"]
            if not url_has_allowed_host_and_scheme(target, {request.get_host()}):
                target = reverse("dashboard:overview")
            return redirect(target)
        user_login_failed.send(__name__, credentials=credentials, request=request)
        form.add_error("code", "That code does not match. Enter the current one.")
    return render(request, "dashboard/login_code.html", {"form": form})


def _is_owner(user) -> bool:
    return Membership.objects.filter(user=user, role=Membership.OWNER).exists()


def _qr(device: TOTPDevice) -> str:
    """The otpauth:// URL as a QR code, a data: URL (the CSP allows data: images)."""
    return segno.make(device.config_url, error="m").svg_data_uri(scale=4)


@tenant_view
def settings_page(request, scope):
    if not _is_owner(request.user):
        raise PermissionDenied
    user = request.user
    confirmed = TOTPDevice.objects.filter(user=user, confirmed=True).first()
    form = CodeForm(request.POST or None)
    if confirmed is not None:
        if request.method == "POST" and form.is_valid():
            if confirmed.verify_token(form.cleaned_data["code"].strip()):
                TOTPDevice.objects.filter(user=user).delete()
                record(request, "two_factor.disabled", user)
                return redirect("dashboard:two-factor")
            form.add_error("code", "That code does not match.")
        return render(
            request, "dashboard/two_factor.html", {"nav": "two-factor", "on": True, "form": form}
        )
    device, _ = TOTPDevice.objects.get_or_create(
        user=user, confirmed=False, defaults={"name": "Authenticator app"}
    )
    if request.method == "POST" and form.is_valid():
        if device.verify_token(form.cleaned_data["code"].strip()):
            device.confirmed = True
            device.save(update_fields=["confirmed"])
            otp_login(request, device)
            record(request, "two_factor.enabled", user)
            return redirect("dashboard:two-factor")
        form.add_error("code", "That code does not match. Check the clock of your phone.")
    secret = base64.b32encode(device.bin_key).decode()
    return render(
        request,
        "dashboard/two_factor.html",
        {"nav": "two-factor", "on": False, "form": form, "secret": secret, "qr": _qr(device)},
    )
