"""A dashboard sign-in lockout (django-axes) is logged and written to the audit log.

Each tenant the locked account belongs to gets one `signin.locked_out` event per lock
(attempts during the lock signal again; they are not written again). A lock on an
address that names no member is logged only: no tenant owns it.
"""

from __future__ import annotations

import logging

from axes.signals import user_locked_out
from django.conf import settings
from django.core.cache import cache
from django.dispatch import receiver
from django.http import HttpResponse
from django.shortcuts import render
from redis.exceptions import RedisError

from tenants.audit import record
from tenants.models import Membership

log = logging.getLogger(__name__)


@receiver(user_locked_out, dispatch_uid="dashboard.signin_lockout")
def on_locked_out(sender, request, username, ip_address, **kwargs) -> None:
    minutes = settings.AXES_COOLOFF_TIME.total_seconds() / 60
    once = f"signin-locked:{username or ip_address}"  # one event per account per lock
    try:
        if not cache.add(once, 1, timeout=int(settings.AXES_COOLOFF_TIME.total_seconds())):
            return
    except (RedisError, OSError):
        pass  # without the cache, write it again rather than not at all
    log.warning(
        "dashboard sign-in locked for %g min after %d failures: account %r, address %s",
        minutes,
        settings.AXES_FAILURE_LIMIT,
        username,
        ip_address,
    )
    details = {"username": username or "", "minutes": minutes}
    memberships = Membership.objects.filter(user__username=username).select_related("tenant")
    for membership in memberships if username else []:
        record(
            request, "signin.locked_out", membership.user, tenant=membership.tenant, details=details
        )


def locked_out_response(request, original_response=None, credentials=None) -> HttpResponse:
    """The sign-in page's answer while locked: 429, and when to come back."""
    seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
    response = render(
        request, "dashboard/locked_out.html", {"minutes": max(1, round(seconds / 60))}, status=429
    )
    response["Retry-After"] = str(seconds)
    return response
