"""Invitations: a one-time link that makes its holder a member of one tenant.

The token is 32 random bytes, urlsafe; only its SHA-256 digest is stored
(as for API keys, a slow hash buys nothing for a 256-bit random secret), so
a database reader cannot accept an invitation. The link works once, until
`expires_at`, and only for the tenant and role it was made for.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class InvitationQuerySet(models.QuerySet):
    def pending(self) -> InvitationQuerySet:
        return self.filter(
            accepted_at__isnull=True, revoked_at__isnull=True, expires_at__gt=timezone.now()
        )


class Invitation(models.Model):
    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.CASCADE, related_name="invitations"
    )
    email = models.EmailField()
    role = models.CharField(max_length=8)  # a Membership role
    token_hash = models.CharField(max_length=64, unique=True)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = InvitationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"invitation of {self.email} to {self.tenant_id} as {self.role}"

    @classmethod
    def issue(cls, tenant, email: str, role: str, invited_by) -> tuple[Invitation, str]:
        """A saved invitation and its token, which exists only in the link sent."""
        token = secrets.token_urlsafe(32)
        ttl = timedelta(hours=settings.TRUTHLENS["INVITATION_TTL_HOURS"])
        invitation = cls.objects.create(
            tenant=tenant,
            email=email,
            role=role,
            token_hash=hash_token(token),
            invited_by=invited_by,
            expires_at=timezone.now() + ttl,
        )
        return invitation, token

    @classmethod
    def find(cls, token: str) -> Invitation | None:
        """The pending invitation for `token`; None when unknown, used, revoked or expired."""
        if not token or len(token) > 100:
            return None
        return (
            cls.objects.pending()
            .select_related("tenant")
            .filter(token_hash=hash_token(token))
            .first()
        )

    def renew(self) -> str | None:
        """A fresh token (and a full time to live) for a pending invitation: the link sent
        before stops working. None when the invitation is no longer pending."""
        token = secrets.token_urlsafe(32)
        ttl = timedelta(hours=settings.TRUTHLENS["INVITATION_TTL_HOURS"])
        expires = timezone.now() + ttl
        renewed = (
            Invitation.objects.pending()
            .filter(pk=self.pk)
            .update(token_hash=hash_token(token), expires_at=expires)
        )
        if not renewed:
            return None
        self.token_hash, self.expires_at = hash_token(token), expires
        return token

    def revoke(self) -> None:
        if self.revoked_at is None and self.accepted_at is None:
            self.revoked_at = timezone.now()
            self.save(update_fields=["revoked_at"])

    @property
    def status(self) -> str:
        if self.accepted_at:
            return "accepted"
        if self.revoked_at:
            return "revoked"
        return "expired" if self.expires_at <= timezone.now() else "pending"
