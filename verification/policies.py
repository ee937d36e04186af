"""Loading a tenant's policy document (defaults when none is stored)."""

from __future__ import annotations

from tenants.models import Policy, Tenant

from .engine.policy import PolicyDocument


def policy_for(tenant: Tenant) -> PolicyDocument:
    try:
        document = tenant.policy.document
    except Policy.DoesNotExist:
        return PolicyDocument()
    return PolicyDocument.model_validate(document or {})
