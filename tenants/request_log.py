"""The console's request log: one row per authenticated API request of a tenant.

Written by `api.request_log.RequestLogMiddleware` with one INSERT per request (no read,
no update); `trim` keeps each tenant's newest `REQUEST_LOG_ROWS` rows, none older than
`REQUEST_LOG_RETENTION_DAYS`, and runs in the maintenance task, not in the request.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import connection, models
from django.utils import timezone


class RequestLogEntry(models.Model):
    tenant = models.ForeignKey("tenants.Tenant", on_delete=models.CASCADE, related_name="+")
    key_prefix = models.CharField(max_length=8, blank=True, default="")
    method = models.CharField(max_length=8)
    path = models.CharField(max_length=300)
    status = models.PositiveSmallIntegerField()
    latency_ms = models.PositiveIntegerField()
    request_id = models.CharField(max_length=64)
    # the error body a failure answered (problem+json, or the gateway's own error shape)
    problem = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["tenant", "-created_at"], name="requestlog_tenant_time"),
            models.Index(fields=["tenant", "request_id"], name="requestlog_tenant_rid"),
        ]

    def __str__(self) -> str:
        return f"{self.method} {self.path} {self.status} ({self.request_id})"

    @property
    def failed(self) -> bool:
        return self.status >= 400


def trim(now=None) -> int:
    """Delete rows past the retention, and each tenant's rows beyond the newest
    `REQUEST_LOG_ROWS`; returns how many went."""
    conf = settings.TRUTHLENS
    cutoff = (now or timezone.now()) - timedelta(days=conf["REQUEST_LOG_RETENTION_DAYS"])
    old, _ = RequestLogEntry.objects.filter(created_at__lt=cutoff).delete()
    table = RequestLogEntry._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            DELETE FROM {table} WHERE id IN (
                SELECT id FROM (
                    SELECT id, row_number() OVER (
                        PARTITION BY tenant_id ORDER BY created_at DESC, id DESC
                    ) AS n FROM {table}
                ) ranked WHERE n > %s
            )
            """,
            [conf["REQUEST_LOG_ROWS"]],
        )
        extra = cursor.rowcount
    return old + extra
