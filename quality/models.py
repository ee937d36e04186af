"""Review queue, labels, labelled datasets and evaluation runs (issue 23)."""

from __future__ import annotations

import uuid
from decimal import Decimal

from django.conf import settings
from django.db import models
from django.utils import timezone

from tenants.models import Tenant

CORRECT, HALLUCINATED = "correct", "hallucinated"
OUTCOMES = [(CORRECT, CORRECT), (HALLUCINATED, HALLUCINATED)]
DEFAULT_SAMPLE_RATE = 0.02


class ReviewItem(models.Model):
    """A finished job waiting for (or given) human labels, and why it was queued."""

    UNCERTAIN, SAMPLE, FLAGGED = "uncertain", "sample", "flagged"
    REASONS = [(UNCERTAIN, "uncertain verdict"), (SAMPLE, "random sample"), (FLAGGED, "flagged")]

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="review_items")
    job = models.OneToOneField(
        "verification.VerificationJob",
        on_delete=models.CASCADE,
        db_constraint=False,
        related_name="review_item",
    )
    reason = models.CharField(max_length=16, choices=REASONS)
    # Drawn by the random sample (whatever else queued it too): the unbiased estimate and
    # the weekly drift figure read only these.
    in_sample = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["tenant", "created_at"], name="review_tenant_created")]

    def __str__(self) -> str:
        return f"{self.reason} review of {self.job_id}"


class Label(models.Model):
    """One reviewer's judgement of one answer; a second reviewer adds a row, never overwrites."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="labels")
    job = models.ForeignKey(
        "verification.VerificationJob",
        on_delete=models.CASCADE,
        db_constraint=False,
        related_name="labels",
    )
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    outcome = models.CharField(max_length=16, choices=OUTCOMES)
    #: the hallucinated character ranges of the response, [{"start": s, "end": e}]
    spans = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["job", "reviewer"], name="uniq_label_per_reviewer")
        ]

    def __str__(self) -> str:
        return f"{self.outcome} by {self.reviewer_id} on {self.job_id}"


class Dataset(models.Model):
    """A named, versioned set of labelled rows; a new upload under a name is a new version."""

    UPLOAD, REVIEW, FEEDBACK = "upload", "review", "feedback"
    SOURCES = [(UPLOAD, "upload"), (REVIEW, "review queue"), (FEEDBACK, "API feedback")]
    PUBLIC_PREFIX = "ds_"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="datasets")
    name = models.CharField(max_length=100)
    version = models.PositiveIntegerField(default=1)
    source = models.CharField(max_length=16, choices=SOURCES)
    size = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "name", "version"], name="uniq_dataset_version"
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"

    @property
    def public_id(self) -> str:
        return self.PUBLIC_PREFIX + self.id.hex

    @classmethod
    def parse_public_id(cls, value: str) -> uuid.UUID | None:
        if not value.startswith(cls.PUBLIC_PREFIX):
            return None
        try:
            return uuid.UUID(hex=value[len(cls.PUBLIC_PREFIX) :])
        except ValueError:
            return None


class DatasetRow(models.Model):
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="rows")
    position = models.PositiveIntegerField()
    context = models.JSONField(default=list)
    query = models.TextField(blank=True, default="")
    response = models.TextField()
    label = models.PositiveSmallIntegerField(help_text="1 = hallucinated, 0 = correct")
    spans = models.JSONField(default=list, blank=True)
    job = models.ForeignKey(
        "verification.VerificationJob",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        db_constraint=False,
    )

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "position"], name="uniq_dataset_row")
        ]

    def __str__(self) -> str:
        return f"row {self.position} of {self.dataset_id}"


class Evaluation(models.Model):
    """A policy version (or an unsaved draft) run over a dataset, in the background."""

    QUEUED, RUNNING, COMPLETED, FAILED = "queued", "running", "completed", "failed"
    STATUSES = [(s, s) for s in (QUEUED, RUNNING, COMPLETED, FAILED)]

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="evaluations")
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="evaluations")
    #: the policy version evaluated (0: the defaults, no policy saved); None for a draft
    policy_version = models.PositiveIntegerField(null=True, blank=True)
    policy_document = models.JSONField(default=dict)
    status = models.CharField(max_length=16, choices=STATUSES, default=QUEUED)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    results = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    # Its own billing line (never a production verification): detector tokens at the
    # plan's per-1k price.
    detector_tokens = models.PositiveIntegerField(default=0)
    price_usd = models.DecimalField(max_digits=14, decimal_places=8, default=Decimal(0))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(default=timezone.now)
    completed_at = models.DateTimeField(null=True, blank=True)
    # For the sweeper: how many times a worker claimed it, and when it last moved (claimed,
    # a batch done, or sent again). A run with no progress for EVALUATION_STALL_SECONDS is
    # re-queued, or failed after MAX_EVALUATION_ATTEMPTS claims.
    attempts = models.PositiveIntegerField(default=0)
    progress_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "progress_at"], name="evaluation_sweep")]

    def __str__(self) -> str:
        return f"evaluation {self.id} ({self.status})"

    @property
    def label(self) -> str:
        if self.policy_version is None:
            return "draft"
        return f"v{self.policy_version}" if self.policy_version else "defaults"

    @property
    def progress(self) -> float:
        return round(self.done / self.total, 3) if self.total else 0.0


class QualitySettings(models.Model):
    """Per tenant: how much traffic the random sample takes, and the drift alarm's margin."""

    tenant = models.OneToOneField(Tenant, on_delete=models.CASCADE, related_name="quality")
    sample_rate = models.FloatField(
        default=DEFAULT_SAMPLE_RATE, help_text="share of finished jobs, 0..1"
    )
    drift_margin = models.FloatField(default=0.1, help_text="agreement drop that alerts")
    drift_alert_week = models.DateField(null=True, blank=True)

    def __str__(self) -> str:
        return f"quality settings of {self.tenant_id}"
