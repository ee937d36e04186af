"""Transactional outbox: a message row written in the same transaction as the job.

After commit the message is published to the broker and marked published.
If the process dies between commit and publish, the relay (in the sweeper)
publishes what is still unpublished, so an accepted job always reaches a worker.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class OutboxMessage(models.Model):
    job = models.ForeignKey(
        "verification.VerificationJob", on_delete=models.CASCADE, db_constraint=False
    )
    task = models.CharField(max_length=100)
    queue = models.CharField(max_length=32)
    created_at = models.DateTimeField(default=timezone.now)
    published_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["published_at", "created_at"], name="outbox_unpublished")]

    def __str__(self) -> str:
        return f"{self.task}({self.job_id})"
