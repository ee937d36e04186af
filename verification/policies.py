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


def request_errors(policy: PolicyDocument, mode: str, decision: str | None = None) -> dict:
    """Field errors for a request's explicit mode and decision under `policy` ({} when fine).

    A requested mode must be one the policy allows; a named decision must exist.
    Shared by `POST /v1/verifications` and the gateway's `X-TruthLens-Mode`.
    """
    errors: dict[str, list[str]] = {}
    if mode != "auto" and mode not in policy.allowed_modes:
        errors["mode"] = [
            f"mode '{mode}' is not allowed by this tenant's policy "
            f"(allowed: {', '.join(policy.allowed_modes)})."
        ]
    if decision and not any(d.name == decision for d in policy.decisions):
        errors["decision"] = [f"the policy has no decision named '{decision}'."]
    return errors
