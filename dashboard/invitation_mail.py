"""The invitation e-mail: the one place the token leaves the server."""

from __future__ import annotations

import logging
import smtplib

from django.conf import settings
from django.core.mail import send_mail
from django.urls import reverse

from tenants.models import Invitation

log = logging.getLogger(__name__)


def invitation_link(token: str) -> str:
    # The configured public address, not the request's Host header: a forged Host
    # must not turn the mailed link into one that leaks the token elsewhere.
    base = settings.TRUTHLENS["PUBLIC_BASE_URL"].rstrip("/")
    return base + reverse("dashboard:invitation", args=[token])


def send_invitation(invitation: Invitation, token: str, inviter: str) -> bool:
    """Mail the link; False when the mail server refused it (the caller says so)."""
    hours = settings.TRUTHLENS["INVITATION_TTL_HOURS"]
    body = (
        f"{inviter} invited you to join {invitation.tenant.name} on TruthLens "
        f"as {invitation.role}.\n\n"
        f"Open this link to set your password and sign in (it works once, for {hours} hours):\n"
        f"{invitation_link(token)}\n"
    )
    try:
        send_mail(
            f"You are invited to {invitation.tenant.name} on TruthLens",
            body,
            None,
            [invitation.email],
        )
    except (OSError, smtplib.SMTPException):
        log.exception("invitation mail to tenant %s failed", invitation.tenant_id)
        return False
    return True
