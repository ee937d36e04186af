"""Dashboard-owned records: the history of policy changes (who, when, what)."""

from __future__ import annotations

import difflib

from django.conf import settings
from django.db import models
from django.utils import timezone
from pydantic import ValidationError

from engine import PolicyDocument
from tenants.models import Tenant

from .policy.yaml_io import dump_yaml


def _canonical(document: dict):
    try:
        return PolicyDocument.model_validate(document or {})
    except ValidationError:  # a document stored before a schema change: show it as it is
        return document


class PolicyChange(models.Model):
    EDITOR, YAML_IMPORT, RESTORE = "editor", "yaml", "restore"
    CALIBRATION = "calibration"  # adopted from the tenant's labels (quality app)
    SOURCES = [
        (EDITOR, "policy editor"),
        (YAML_IMPORT, "YAML import"),
        (RESTORE, "restore"),
        (CALIBRATION, "calibration from labels"),
    ]

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="policy_changes")
    version = models.PositiveIntegerField()
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    source = models.CharField(max_length=16, choices=SOURCES, default=EDITOR)
    before = models.JSONField(default=dict)
    after = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["tenant", "-created_at"], name="policychange_tenant")]

    def __str__(self) -> str:
        return f"policy v{self.version} of {self.tenant_id}"

    def diff_lines(self) -> list[str]:
        """Unified diff of the two documents as YAML, without the ---/+++ header.

        Both sides go through `PolicyDocument` first: Postgres `jsonb` does not keep
        key order, and an empty "before" means the defaults were in force.
        """
        lines = difflib.unified_diff(
            dump_yaml(_canonical(self.before)).splitlines(),
            dump_yaml(_canonical(self.after)).splitlines(),
            lineterm="",
            n=2,
        )
        return [line for line in lines if not line.startswith(("---", "+++"))]
