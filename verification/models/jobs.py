"""Verification jobs and what detection found in them."""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from tenants.models import DEFAULT_RETENTION_MONTHS, RETENTION_MONTHS, ApiKey, Tenant

from .plan import PlannedJob

PUBLIC_PREFIX = "ver_"


class JobStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"


FINAL_STATUSES = (JobStatus.COMPLETED, JobStatus.FAILED)


class JobStage(models.TextChoices):
    """Where a running job is: detection, waiting for mitigation, mitigating, finished."""

    DETECT = "detect"
    MITIGATE = "mitigate"
    MITIGATING = "mitigating"
    DONE = "done"


class VerificationJob(PlannedJob, models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="jobs")
    api_key = models.ForeignKey(ApiKey, null=True, blank=True, on_delete=models.SET_NULL)
    status = models.CharField(max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED)

    # --- request -----------------------------------------------------------
    context = models.JSONField(default=list)
    passage_ids = models.JSONField(null=True, blank=True)
    query = models.TextField(blank=True, default="")
    response = models.TextField()
    messages = models.JSONField(null=True, blank=True)
    model = models.CharField(max_length=200, blank=True, default="")
    requested_mode = models.CharField(max_length=16, default="auto")
    requested_decision = models.CharField(max_length=100, blank=True, default="")
    requested_threshold = models.FloatField(null=True, blank=True)
    # No context: check the answer against this knowledge base (else the policy's default).
    knowledge_base = models.ForeignKey(
        "knowledge.KnowledgeBase", null=True, blank=True, on_delete=models.SET_NULL
    )
    callback_url = models.URLField(max_length=2000, blank=True, default="")
    metadata = models.JSONField(default=dict, blank=True)
    #: The request's own search controls, within the policy's limits (`stages.ground`):
    #: sources, max_queries, top_k, evidence_threshold, a document metadata filter.
    search = models.JSONField(default=dict, blank=True)
    # NULL (not "") so the conditional unique constraint ignores requests without a key.
    idempotency_key = models.CharField(max_length=255, null=True, blank=True)  # noqa: DJ001
    request_hash = models.CharField(max_length=64, blank=True, default="")
    # Someone is waiting on the answer (a gateway call, or the API's `wait > 0`): its stages
    # go to the interactive queues, which workers read before the batch queues.
    interactive = models.BooleanField(default=False)

    # --- plan ----------------------------------------------------------------
    #: The job's plan (`engine.JobPlan`, as JSON: `verification/models/plan.py`): the query
    #: type, decision, mode, mode source, whether the policy checks it, the threshold and model
    #: it was planned with, the policy as it was. Written once a detect worker has planned the
    #: job (the hand-off to mitigation, completion); NULL before. `job.mode`, `job.decision`,
    #: `job.query_type` … read its keys; queries filter on `plan__mode` … (JSON key lookups).
    plan = models.JSONField(null=True, blank=True)

    # --- result ------------------------------------------------------------
    verification_status = models.CharField(max_length=16, blank=True, default="")
    reason = models.TextField(blank=True, default="")
    score = models.FloatField(null=True, blank=True)
    model_score = models.FloatField(null=True, blank=True)
    final_score = models.FloatField(null=True, blank=True, help_text="score of final_response")
    #: the threshold the detection applied: the plan's, or a query type's own fitted one
    threshold = models.FloatField(null=True, blank=True)
    detected = models.BooleanField(null=True, blank=True)
    #: hallucinated | faithful | uncertain ("" until verified; engine `DetectionResult`)
    verdict = models.CharField(max_length=16, blank=True, default="")
    risk_level = models.CharField(max_length=16, blank=True, default="")
    # {"calibrated": bool, "method", "dataset", "dataset_version"}: the policy's calibration
    # (fitted from the tenant's labels) the score went through; null before completion.
    score_calibration = models.JSONField(null=True, blank=True)
    final_response = models.TextField(blank=True, default="")
    iterations = models.PositiveIntegerField(default=0)
    warning = models.TextField(blank=True, default="")  # for the end user: the policy's text
    # For operators: fallbacks, failed or unusable LLM calls; never put in `warning`.
    diagnostics = models.JSONField(default=list, blank=True)
    coverage = models.JSONField(default=dict, blank=True)
    citations = models.JSONField(null=True, blank=True)
    cascade = models.JSONField(null=True, blank=True, help_text="which tier decided each span")
    detector = models.CharField(max_length=100, blank=True, default="")
    detector_tokens = models.PositiveIntegerField(default=0)
    error_code = models.CharField(max_length=64, blank=True, default="")
    error_message = models.TextField(blank=True, default="")

    # --- timing and leasing -------------------------------------------------
    # `created_at` and `retention_months` are the table's partition key: the database's
    # primary key is (id, retention_months, created_at), one partition per retention class
    # and month (`verification/partitions.py`); Django knows `id` alone as the key.
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    #: the plan's retention when the job was created (`Plan.retention_months`): the job's
    #: month partition of this class is dropped once the month is older than this
    retention_months = models.PositiveSmallIntegerField(
        default=DEFAULT_RETENTION_MONTHS, choices=RETENTION_MONTHS, editable=False
    )
    enqueued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    stage = models.CharField(max_length=16, choices=JobStage.choices, default=JobStage.DETECT)
    # What evidence was retrieved for an answer without a context (`stages/ground.py`):
    # claims, their coverage, and the passages or web results the context was built from.
    grounding = models.JSONField(null=True, blank=True)
    detection = models.JSONField(
        null=True, blank=True, help_text="detection of the original answer"
    )
    bandit_reward = models.FloatField(null=True, blank=True)
    feedback_applied = models.BooleanField(default=False)
    latency_ms = models.JSONField(default=dict, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["tenant", "-created_at"], name="job_tenant_created"),
            models.Index(fields=["status", "lease_expires_at"], name="job_status_lease"),
            # Not unique: a partitioned table's unique index must hold the partition key.
            # `actions.create` serializes a tenant's requests with one key (advisory lock).
            models.Index(
                fields=["tenant", "idempotency_key"],
                condition=models.Q(idempotency_key__isnull=False),
                name="job_idempotency_key",
            ),
        ]

    def __str__(self) -> str:
        return self.public_id

    @property
    def public_id(self) -> str:
        return PUBLIC_PREFIX + self.id.hex

    @staticmethod
    def parse_public_id(value: str) -> uuid.UUID | None:
        if not value.startswith(PUBLIC_PREFIX):
            return None
        try:
            return uuid.UUID(hex=value[len(PUBLIC_PREFIX) :])
        except ValueError:
            return None

    @property
    def is_final(self) -> bool:
        return self.status in FINAL_STATUSES


class JobPartitionedManager(models.Manager):
    """`bulk_create` fills each row's copy of its job's partition key first."""

    def bulk_create(self, objs, *args, **kwargs):
        objs = list(objs)
        for obj in objs:
            obj.copy_job_partition_key()
        return super().bulk_create(objs, *args, **kwargs)


class JobPartitioned(models.Model):
    """A table partitioned like the jobs (by retention class and month of the job's
    creation): each row carries a copy of its job's partition key, filled on save.

    The foreign key to the job has no database constraint (the database cannot reference
    a partitioned table's `id` alone); Django's ORM still cascades deletes.
    """

    job_created_at = models.DateTimeField(editable=False)
    retention_months = models.PositiveSmallIntegerField(editable=False)

    objects = JobPartitionedManager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        self.copy_job_partition_key()
        super().save(*args, **kwargs)

    def copy_job_partition_key(self) -> None:
        if self.job_created_at is None or self.retention_months is None:
            job = self.job  # type: ignore[attr-defined]
            self.job_created_at = job.created_at
            self.retention_months = job.retention_months


class DetectedSpan(JobPartitioned):
    job = models.ForeignKey(
        VerificationJob, on_delete=models.CASCADE, related_name="spans", db_constraint=False
    )
    iteration = models.PositiveIntegerField(default=0, help_text="0 = the customer's answer")
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    text = models.TextField()
    confidence = models.FloatField()
    label = models.CharField(max_length=16)
    reason = models.TextField(blank=True, default="")
    evidence = models.TextField(blank=True, default="")
    evidence_passage = models.IntegerField(null=True, blank=True)
    evidence_start = models.IntegerField(null=True, blank=True)
    evidence_end = models.IntegerField(null=True, blank=True)

    class Meta:
        ordering = ["iteration", "start"]

    def __str__(self) -> str:
        return f"{self.label} {self.start}-{self.end}"


class Feedback(models.Model):
    CORRECT, HALLUCINATED = "correct", "hallucinated"
    OUTCOMES = [(CORRECT, CORRECT), (HALLUCINATED, HALLUCINATED)]

    job = models.ForeignKey(
        VerificationJob, on_delete=models.CASCADE, related_name="feedback", db_constraint=False
    )
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE)
    outcome = models.CharField(max_length=16, choices=OUTCOMES)
    comment = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.outcome} on {self.job_id}"
