"""Webhook deliveries and every attempt at them."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from tenants.models import Tenant, WebhookEndpoint


class WebhookDelivery(models.Model):
    TEST_EVENT = "webhook.test"  # sent by the dashboard's "Send test event", never retried
    PENDING, SENDING, SUCCEEDED, FAILED = "pending", "sending", "succeeded", "failed"
    STATUSES = [(s, s) for s in (PENDING, SENDING, SUCCEEDED, FAILED)]

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="webhook_deliveries")
    job = models.ForeignKey(
        "verification.VerificationJob",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        db_constraint=False,
    )
    endpoint = models.ForeignKey(WebhookEndpoint, null=True, blank=True, on_delete=models.SET_NULL)
    url = models.URLField(max_length=2000)
    event_id = models.CharField(max_length=64, unique=True)
    event_type = models.CharField(max_length=64)
    payload = models.JSONField()
    status = models.CharField(max_length=16, choices=STATUSES, default=PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="webhook_due")]

    def __str__(self) -> str:
        return f"{self.event_type} → {self.url} ({self.status})"


class WebhookAttempt(models.Model):
    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="log")
    number = models.PositiveIntegerField()
    status_code = models.PositiveIntegerField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    # the start of the receiver's answer (RESPONSE_BODY_BYTES), for the delivery log
    response_body = models.TextField(blank=True, default="")
    duration_ms = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["number"]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.delivery_id}"
