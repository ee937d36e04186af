"""How a request's mitigation mode is chosen: request override, policy, or Thompson sampling."""

from __future__ import annotations

from dataclasses import dataclass

from tenants.models import Tenant

from .engine.policy import PolicyDocument

ALL_MODES = ("lightweight", "standard", "premium")


@dataclass(frozen=True)
class ModeChoice:
    mode: str
    source: str  # request | policy | bandit


def choose_mode(
    requested: str,
    policy: PolicyDocument,
    decision_mode: str,
    tenant: Tenant,
    query_type: str,
    key: str,
) -> ModeChoice:
    """The request's explicit mode wins; `auto` (from the request, decision or policy)
    samples among the modes the policy allows."""
    if requested and requested != "auto":
        return ModeChoice(requested, "request")
    candidate = decision_mode if decision_mode != "auto" else policy.default_mode
    if candidate != "auto":
        return ModeChoice(candidate, "policy")
    allowed = list(policy.allowed_modes) or ["lightweight"]
    from . import bandit_store

    return ModeChoice(bandit_store.choose(tenant, query_type, allowed, key), "bandit")
