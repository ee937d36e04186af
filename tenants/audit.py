"""The audit log: who changed what in a tenant, when, and from where.

`record(request, action, target)` is the one call a view makes after a change
succeeds. It reads the actor from the request: a signed-in dashboard user, or
the API key of an API call (`request.user.key`, kept as its prefix), and the
tenant from the dashboard scope or the key, unless `tenant=` names it (staff
creating a tenant). Actions are `noun.verb` strings (`api_key.created`); the
page lists whatever actions a tenant's log holds, so a new one needs no
registry and no migration.
"""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

ACTION_RE = re.compile(r"^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$")


class AuditEvent(models.Model):
    tenant = models.ForeignKey("tenants.Tenant", on_delete=models.CASCADE, related_name="+")
    actor_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_key_prefix = models.CharField(max_length=8, blank=True, default="")
    # The actor as shown when the event happened: kept when the user is deleted later.
    actor_name = models.CharField(max_length=150, blank=True, default="")
    action = models.CharField(max_length=64)
    target_type = models.CharField(max_length=64, blank=True, default="")
    target_id = models.CharField(max_length=64, blank=True, default="")
    # The target as people know it ("tl_ab12cd34_… (ci)", an e-mail, a URL), kept as it was
    # named then; events written before it was kept show type and id instead.
    target_name = models.CharField(max_length=200, blank=True, default="")
    details = models.JSONField(default=dict, blank=True)
    ip = models.GenericIPAddressField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["tenant", "-created_at"], name="auditevent_tenant_time"),
            models.Index(fields=["tenant", "action"], name="auditevent_tenant_action"),
        ]

    def __str__(self) -> str:
        return f"{self.action} by {self.actor} in {self.tenant_id}"

    @property
    def actor(self) -> str:
        return self.actor_name or "system"


def name_of(target: models.Model) -> str:
    """How the audit log names a target: by what people call it, not its database id."""
    model = target._meta.model_name
    if model == "apikey":
        label = f"tl_{target.prefix}_…"
        return f"{label} ({target.name})" if target.name else label
    if model == "membership":
        return target.user.get_username()
    if model == "policy":
        return f"policy v{target.version}"
    for attribute in ("name", "email", "url"):
        value = getattr(target, attribute, "")
        if isinstance(value, str) and value:
            return value
    return str(target)


def _actor(request) -> tuple[Any, str, str]:
    """(user or None, API key prefix, display name) of whoever made the request."""
    user = getattr(request, "user", None) if request is not None else None
    key = getattr(user, "key", None)  # the API's TenantPrincipal carries its key
    if key is not None:
        return None, key.prefix, f"API key tl_{key.prefix}_…"
    if user is not None and user.is_authenticated:
        return user, "", user.get_username()
    return None, "", ""


def _tenant_of(request, target) -> Any:
    scope = getattr(request, "scope", None)
    if scope is not None:
        return scope.tenant
    principal: Any = getattr(request, "user", None)
    if getattr(principal, "key", None) is not None:
        return principal.tenant
    return getattr(target, "tenant", None)


def client_ip(request) -> str | None:
    """The client's address as the audit log, the sign-in lockout and the API's
    key-guessing throttle all read it."""
    # REMOTE_ADDR, not X-Forwarded-For: a client can write any forwarded header it
    # likes, and the deployment's proxy is not a configured trusted hop.
    return request.META.get("REMOTE_ADDR") or None if request is not None else None


def record(
    request,
    action: str,
    target: models.Model | None = None,
    *,
    tenant=None,
    details: dict | None = None,
) -> AuditEvent:
    """Write one audit event for a change that has just been made.

    `request`: the dashboard or API request (None for a management command);
    `target`: the changed object (its model name and public id or pk are kept);
    `tenant`: only when neither the request nor the target gives it.
    """
    if not ACTION_RE.match(action):
        raise ValueError(f"audit action must look like 'noun.verb', got {action!r}")
    tenant = tenant or _tenant_of(request, target)
    if tenant is None:
        raise ValueError(f"audit event {action!r} has no tenant")
    user, prefix, name = _actor(request)
    target_type = target_id = target_name = ""
    if target is not None:
        target_type = target._meta.model_name or ""
        target_id = str(getattr(target, "public_id", None) or target.pk or "")
        target_name = name_of(target)
    return AuditEvent.objects.create(
        tenant=tenant,
        actor_user=user,
        actor_key_prefix=prefix,
        actor_name=name[:150],
        action=action,
        target_type=target_type,
        target_id=target_id[:64],
        target_name=target_name[:200],
        details=details or {},
        ip=client_ip(request),
    )
