"""One usage record per finished job: what it cost us and what we bill (docs/architecture.md "Billing and metrics")."""

from __future__ import annotations

from decimal import Decimal

from django.db import models
from django.utils import timezone

from tenants.models import Tenant

from .jobs import JobPartitioned


class UsageRecord(JobPartitioned):
    # Unique in the database as (job_id, retention_months, job_created_at), which is the
    # same thing: the last two are the job's own. No database foreign key (`JobPartitioned`).
    job = models.OneToOneField(
        "verification.VerificationJob",
        on_delete=models.CASCADE,
        related_name="usage",
        db_constraint=False,
    )
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="usage_records")
    mode = models.CharField(max_length=16)
    detector_tokens = models.PositiveIntegerField(default=0)
    llm_calls = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    per_model = models.JSONField(default=dict, blank=True)
    # What the service paid providers for this job (billed with the plan's markups)...
    provider_cost_usd = models.DecimalField(max_digits=14, decimal_places=8, default=Decimal(0))
    # ...and what the tenant paid its own providers, through its own keys: reported, never billed.
    tenant_provider_cost_usd = models.DecimalField(
        max_digits=14, decimal_places=8, default=Decimal(0)
    )
    price_usd = models.DecimalField(max_digits=14, decimal_places=8, default=Decimal(0))
    # web search queries that answered, made to ground an answer without context, and their
    # cost (failed queries are not counted: providers do not charge them)
    search_queries = models.PositiveIntegerField(default=0)
    search_cost_usd = models.DecimalField(max_digits=14, decimal_places=8, default=Decimal(0))
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        # a tenant's month (billing report, meters): one range scan per partition
        indexes = [models.Index(fields=["tenant", "created_at"], name="usage_tenant_created")]

    def __str__(self) -> str:
        return f"usage of {self.job_id}"


class UsageAlert(models.Model):
    """A quota or budget threshold crossed in one month: the row is the "sent once" mark
    (its unique constraint makes a second alert for the same crossing impossible)."""

    VERIFICATIONS, SPEND = "verifications", "spend"
    METRICS = [(VERIFICATIONS, "verifications"), (SPEND, "spend")]

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    period = models.CharField(max_length=7)  # YYYY-MM (UTC)
    metric = models.CharField(max_length=16, choices=METRICS)
    threshold = models.PositiveSmallIntegerField()  # percent: 80 or 100
    used = models.DecimalField(max_digits=14, decimal_places=2)
    limit = models.DecimalField(max_digits=14, decimal_places=2)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "period", "metric", "threshold"], name="uniq_usage_alert"
            )
        ]

    def __str__(self) -> str:
        return f"{self.metric} {self.threshold}% of {self.tenant_id} in {self.period}"


class MonthlyJobCount(models.Model):
    """How many jobs a tenant created in a (UTC) calendar month: the plan's quota counter.

    Incremented by the statement that creates the job (`actions.create`), with the quota
    in its `WHERE`, so the row lock of `INSERT … ON CONFLICT DO UPDATE` serializes the
    tenant's concurrent requests and the counter is exact. Migration 0016 backfilled it
    from the jobs that existed before.
    """

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="job_counts")
    month = models.DateField(help_text="the first day of the month (UTC)")
    jobs = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "month"], name="monthly_job_count_unique")
        ]

    def __str__(self) -> str:
        return f"{self.tenant_id} {self.month:%Y-%m}: {self.jobs}"
