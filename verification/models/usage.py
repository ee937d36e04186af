"""One usage record per finished job: what it cost us and what we bill (DESIGN §7)."""

from __future__ import annotations

from decimal import Decimal

from django.db import models
from django.utils import timezone

from tenants.models import Tenant


class UsageRecord(models.Model):
    job = models.OneToOneField(
        "verification.VerificationJob", on_delete=models.CASCADE, related_name="usage"
    )
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="usage_records")
    mode = models.CharField(max_length=16)
    detector_tokens = models.PositiveIntegerField(default=0)
    llm_calls = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    per_model = models.JSONField(default=dict, blank=True)
    provider_cost_usd = models.DecimalField(max_digits=14, decimal_places=8, default=Decimal(0))
    price_usd = models.DecimalField(max_digits=14, decimal_places=8, default=Decimal(0))
    # web search queries made to ground an answer without context, and what they cost us
    search_queries = models.PositiveIntegerField(default=0)
    search_cost_usd = models.DecimalField(max_digits=14, decimal_places=8, default=Decimal(0))
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    def __str__(self) -> str:
        return f"usage of {self.job_id}"
