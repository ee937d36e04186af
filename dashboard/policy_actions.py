"""Saving a tenant's policy: one transaction writes the document and its history row."""

from __future__ import annotations

from django.db import transaction
from pydantic import ValidationError

from tenants.models import Policy, Tenant
from verification.engine.policy import PolicyDocument

from .models import PolicyChange


def _normalised(document: dict) -> dict:
    try:
        return PolicyDocument.model_validate(document or {}).model_dump(mode="json")
    except ValidationError:
        return document or {}


def current_document(tenant: Tenant) -> PolicyDocument:
    """The stored policy, or the defaults when none is stored yet."""
    policy = Policy.objects.filter(tenant=tenant).first()
    return PolicyDocument.model_validate(policy.document or {}) if policy else PolicyDocument()


def save_policy(tenant: Tenant, user, document: PolicyDocument, source: str) -> PolicyChange | None:
    """Store `document` for `tenant` and record the change; None when nothing changed."""
    after = document.model_dump(mode="json")
    with transaction.atomic():
        policy, created = Policy.objects.select_for_update().get_or_create(
            tenant=tenant, defaults={"document": {}, "version": 0}
        )
        before = _normalised(policy.document) if not created else {}
        if not created and before == after:
            return None
        policy.document = after
        policy.version = (policy.version or 0) + 1
        policy.updated_by = user
        policy.save()
        return PolicyChange.objects.create(
            tenant=tenant,
            version=policy.version,
            actor=user,
            source=source,
            before=before,
            after=after,
        )
