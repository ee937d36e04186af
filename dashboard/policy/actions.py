"""Saving a tenant's policy: one transaction writes the document and its history row."""

from __future__ import annotations

from django.db import transaction
from pydantic import ValidationError

from engine import PolicyDocument, Problem, check_policy
from tenants.models import Policy, Tenant
from verification.tenant_config import available_to

from ..models import PolicyChange


class StalePolicy(Exception):
    """The stored policy moved on since the editor loaded `expected`: nothing was saved."""

    def __init__(self, expected: int, current: int, document: PolicyDocument):
        super().__init__(f"policy is at version {current}, the edit started from {expected}")
        self.expected, self.current, self.document = expected, current, document


class UnpublishablePolicy(ValueError):
    """An old version that today's checks refuse (restore): `problems` says why."""

    def __init__(self, problems: list[Problem]):
        super().__init__("; ".join(p.message for p in problems))
        self.problems = problems


def _normalised(document: dict) -> dict:
    try:
        return PolicyDocument.model_validate(document or {}).model_dump(mode="json")
    except ValidationError:
        return document or {}


def current_document(tenant: Tenant) -> PolicyDocument:
    """The stored policy, or the defaults when none is stored yet."""
    policy = Policy.objects.filter(tenant=tenant).first()
    return PolicyDocument.model_validate(policy.document or {}) if policy else PolicyDocument()


def current_version(tenant: Tenant) -> int:
    """The stored policy's version; 0 while the defaults apply."""
    return Policy.objects.filter(tenant=tenant).values_list("version", flat=True).first() or 0


def save_policy(
    tenant: Tenant,
    user,
    document: PolicyDocument,
    source: str,
    expected_version: int | None = None,
) -> PolicyChange | None:
    """Store `document` for `tenant` and record the change; None when nothing changed.

    With `expected_version`, raises `StalePolicy` when the stored version is another
    one: the check and the write happen under the row lock, so of two tabs saving
    from the same version exactly one wins.
    """
    after = document.model_dump(mode="json")
    with transaction.atomic():
        policy, created = Policy.objects.select_for_update().get_or_create(
            tenant=tenant, defaults={"document": {}, "version": 0}
        )
        stored_version = policy.version or 0
        if expected_version is not None and expected_version != stored_version:
            raise StalePolicy(
                expected_version,
                stored_version,
                PolicyDocument.model_validate(policy.document or {}),
            )
        before = _normalised(policy.document) if not created else {}
        if not created and before == after:
            return None
        policy.document = after
        policy.version = stored_version + 1
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


def restore_version(tenant: Tenant, user, version: int) -> PolicyChange | None:
    """Publish the document of history `version` again, as a new version.

    Raises `PolicyChange.DoesNotExist` for a version the tenant does not have and
    `UnpublishablePolicy` when today's checks refuse it; None when it is already current.
    """
    old = PolicyChange.objects.filter(tenant=tenant, version=version).first()
    if old is None:
        raise PolicyChange.DoesNotExist(version)
    document, problems = check_policy(old.after or {}, available_to(tenant))
    if document is None:
        raise UnpublishablePolicy(problems)
    return save_policy(tenant, user, document, PolicyChange.RESTORE)
