"""Mitigation trajectories, LLM calls and the bandit's arms."""

from __future__ import annotations

from decimal import Decimal

from django.db import models
from django.utils import timezone

from tenants.models import Tenant


class MitigationStep(models.Model):
    """One step the dashboard shows: a refinement round, a premium answer, a judge verdict."""

    KINDS = [(k, k) for k in ("refine", "answer", "judge", "repair", "cascade", "final")]

    job = models.ForeignKey(
        "verification.VerificationJob",
        on_delete=models.CASCADE,
        db_constraint=False,
        related_name="mitigation_steps",
    )
    index = models.PositiveIntegerField()
    kind = models.CharField(max_length=16, choices=KINDS)
    model = models.CharField(max_length=200, blank=True, default="")
    text = models.TextField(blank=True, default="")
    score = models.FloatField(null=True, blank=True)
    spans = models.JSONField(default=list, blank=True)
    detail = models.JSONField(default=dict, blank=True)
    cost_usd = models.DecimalField(max_digits=14, decimal_places=8, default=Decimal(0))
    latency_ms = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["index"]

    def __str__(self) -> str:
        return f"{self.kind} #{self.index} of {self.job_id}"


class LLMCallRecord(models.Model):
    """Every LLM call made for a job, failed ones included: the basis of cost accounting."""

    job = models.ForeignKey(
        "verification.VerificationJob",
        on_delete=models.CASCADE,
        db_constraint=False,
        related_name="llm_calls",
    )
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE)
    model = models.CharField(max_length=200)
    role = models.CharField(max_length=32)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=14, decimal_places=8, default=Decimal(0))
    latency_ms = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    # Made with the tenant's own provider credentials: the tenant pays the provider
    # directly, so the cost is reported to it and never billed (`billing.usage`).
    own_key = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    def __str__(self) -> str:
        return f"{self.role}:{self.model}"


class ModeArm(models.Model):
    """A Beta(α, β) posterior for `(tenant, query_type, mode)`; updated with F() expressions."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="mode_arms")
    query_type = models.CharField(max_length=32)
    mode = models.CharField(max_length=16)
    alpha = models.FloatField(default=1.0)
    beta = models.FloatField(default=1.0)
    pulls = models.PositiveIntegerField(default=0)
    reward_sum = models.FloatField(default=0.0)
    last_rewards = models.JSONField(default=list, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "query_type", "mode"], name="uniq_mode_arm")
        ]

    def __str__(self) -> str:
        return f"{self.tenant_id}/{self.query_type}/{self.mode} Beta({self.alpha:g},{self.beta:g})"

    @property
    def mean(self) -> float:
        return self.alpha / (self.alpha + self.beta)
