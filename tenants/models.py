"""Tenants, their keys, members, plans, policies and webhook endpoints."""

from __future__ import annotations

import secrets
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.db import models
from django.utils import timezone

from security import crypto

from .keys import NewKey, generate_key


def _new_webhook_secret() -> tuple[str, str]:
    """A fresh `whsec_` signing secret and its encrypted form (the one that is stored)."""
    secret = "whsec_" + secrets.token_urlsafe(32)
    return secret, crypto.encrypt(secret)


#: How long a plan keeps verification jobs (with their spans and usage), in months. A closed
#: set: each value is a partition class of the jobs tables (`verification/partitions.py`),
#: whose month partitions exist ahead of time and are dropped whole once expired.
RETENTION_MONTHS = [(m, f"{m} months" if m > 1 else "1 month") for m in (1, 3, 6, 12, 24)]
DEFAULT_RETENTION_MONTHS = 12  # also the class of jobs of tenants without a plan


class Plan(models.Model):
    """Prices and limits a tenant buys (docs/architecture.md "Billing and metrics")."""

    name = models.SlugField(unique=True)
    # Shown to every tenant on the billing page; an internal plan (a trial, a deal for one
    # customer, staff test plans) is shown only to staff and to the tenants on it.
    is_public = models.BooleanField(default=False)
    rate_limit = models.CharField(
        max_length=32, default="600/min", help_text="<n>/<sec|min|hour|day>"
    )
    monthly_quota = models.PositiveIntegerField(
        default=0, help_text="verifications/month; 0 = unlimited"
    )
    price_per_verification = models.JSONField(
        default=dict,
        help_text='USD by mode, e.g. {"lightweight": 0.001, "standard": 0.004}; "skipped" prices '
        "a verification whose query type the policy skips (0 when absent)",
    )
    price_per_1k_detector_tokens = models.DecimalField(max_digits=10, decimal_places=6, default=0)
    llm_markup = models.DecimalField(max_digits=6, decimal_places=3, default=1.2)
    # Knowledge bases (fact-checking without a supplied context).
    kb_max_documents = models.PositiveIntegerField(
        default=1000, help_text="documents per tenant, across its knowledge bases"
    )
    kb_max_document_bytes = models.PositiveIntegerField(
        default=10 * 1024 * 1024, help_text="bytes per uploaded document"
    )
    # Labelled datasets (quality app): how many, and how many rows each.
    max_datasets = models.PositiveIntegerField(default=50, help_text="dataset versions per tenant")
    max_dataset_rows = models.PositiveIntegerField(default=5000, help_text="rows per dataset")
    search_price_markup = models.DecimalField(
        max_digits=6,
        decimal_places=3,
        default=Decimal("1.2"),
        help_text="on web search provider cost",
    )
    retention_months = models.PositiveSmallIntegerField(
        choices=RETENTION_MONTHS,
        default=DEFAULT_RETENTION_MONTHS,
        help_text="months a job (its spans and usage) is kept at least; a job is deleted "
        "with its month's partition within a month after that",
    )

    def __str__(self) -> str:
        return self.name


class Tenant(models.Model):
    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=200)
    plan = models.ForeignKey(Plan, null=True, blank=True, on_delete=models.PROTECT)
    is_active = models.BooleanField(default=True)
    # Signs webhooks sent to per-request callback URLs; encrypted at rest.
    webhook_secret_encrypted = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    # The model a job refines with, and the gateway calls, when none is named: always one
    # of the tenant's providers' models (`tenants.llm_providers`); empty while it has none.
    default_model = models.CharField(max_length=200, blank=True, default="")
    # What the tenant means to spend a month (our price, USD); none = no budget. A hard
    # budget refuses new verifications (402) once reached; a soft one only alerts.
    monthly_budget_usd = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    budget_hard = models.BooleanField(default=False)

    def __str__(self) -> str:
        return self.slug

    @property
    def webhook_secret(self) -> str:
        return (
            crypto.decrypt(self.webhook_secret_encrypted) if self.webhook_secret_encrypted else ""
        )

    def rotate_webhook_secret(self) -> str:
        secret, self.webhook_secret_encrypted = _new_webhook_secret()
        return secret

    @property
    def rate_limit(self) -> str:
        return self.plan.rate_limit if self.plan else settings.TRUTHLENS["DEFAULT_RATE"]


class ApiKeyQuerySet(models.QuerySet):
    def active(self) -> ApiKeyQuerySet:
        return self.filter(revoked_at__isnull=True, tenant__is_active=True)


class ApiKey(models.Model):
    SCOPE_READ = "read"
    SCOPE_WRITE = "write"
    SCOPES = [(SCOPE_READ, "read only"), (SCOPE_WRITE, "read and write")]

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=100, default="default")
    prefix = models.CharField(max_length=8, unique=True)
    secret_hash = models.CharField(max_length=64)
    scope = models.CharField(max_length=8, choices=SCOPES, default=SCOPE_WRITE)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiKeyQuerySet.as_manager()

    def __str__(self) -> str:
        return f"tl_{self.prefix}_… ({self.tenant.slug})"

    @classmethod
    def issue(
        cls, tenant: Tenant, name: str = "default", scope: str = SCOPE_WRITE
    ) -> tuple[ApiKey, str]:
        """Create a key and return it with the full token, which is never shown again."""
        new: NewKey = generate_key()
        key = cls.objects.create(
            tenant=tenant, name=name, prefix=new.prefix, secret_hash=new.secret_hash, scope=scope
        )
        return key, new.token

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    def revoke(self) -> None:
        if self.revoked_at is None:
            self.revoked_at = timezone.now()
            self.save(update_fields=["revoked_at"])


class Membership(models.Model):
    OWNER, ADMIN, VIEWER = "owner", "admin", "viewer"
    # Reads like a viewer, and labels answers in the review queue (quality app).
    REVIEWER = "reviewer"
    ROLES = [(OWNER, "owner"), (ADMIN, "admin"), (REVIEWER, "reviewer"), (VIEWER, "viewer")]

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=8, choices=ROLES, default=VIEWER)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "tenant"], name="uniq_membership")]

    def __str__(self) -> str:
        return f"{self.user} @ {self.tenant} ({self.role})"


class Policy(models.Model):
    """A tenant's verification policy (docs/policies.md "The policy document"), validated by `engine.policy`."""

    tenant = models.OneToOneField(Tenant, on_delete=models.CASCADE, related_name="policy")
    document = models.JSONField(default=dict)
    version = models.PositiveIntegerField(default=1)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )

    def __str__(self) -> str:
        return f"policy of {self.tenant} v{self.version}"


class WebhookEndpoint(models.Model):
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="webhook_endpoints")
    url = models.URLField(max_length=2000)
    secret_encrypted = models.TextField()
    # After a rotation the old secret keeps signing (next to the new one) until it expires.
    previous_secret_encrypted = models.TextField(blank=True, default="")
    previous_secret_expires_at = models.DateTimeField(null=True, blank=True)
    events = models.JSONField(default=list, help_text="event types; empty = all")
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return self.url

    @property
    def secret(self) -> str:
        return crypto.decrypt(self.secret_encrypted)

    def set_new_secret(self) -> str:
        secret, self.secret_encrypted = _new_webhook_secret()
        return secret

    def rotate_secret(self, overlap_seconds: float) -> str:
        """A new secret; the current one keeps signing for `overlap_seconds` (0: stops now).
        Returns the new secret in clear (the only time it is)."""
        if overlap_seconds > 0:
            self.previous_secret_encrypted = self.secret_encrypted
            self.previous_secret_expires_at = timezone.now() + timedelta(seconds=overlap_seconds)
        else:
            self.previous_secret_encrypted, self.previous_secret_expires_at = "", None
        return self.set_new_secret()

    def previous_secret_live(self, now=None) -> bool:
        expires = self.previous_secret_expires_at
        return (
            bool(self.previous_secret_encrypted)
            and expires is not None
            and (expires > (now or timezone.now()))
        )

    def signing_secrets(self, now=None) -> list[str]:
        """The secrets that sign a delivery now: the current one, then the previous one
        while its overlap window is open."""
        secrets_ = [self.secret]
        if self.previous_secret_live(now):
            secrets_.append(crypto.decrypt(self.previous_secret_encrypted))
        return secrets_

    def wants(self, event_type: str) -> bool:
        return self.is_active and (not self.events or event_type in self.events)


# Models kept in their own modules, registered with the app here.
from .audit import AuditEvent  # noqa: E402, F401
from .invitations import Invitation  # noqa: E402, F401
from .llm_providers import LLMProvider  # noqa: E402, F401
from .request_log import RequestLogEntry  # noqa: E402, F401
