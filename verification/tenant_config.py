"""What a tenant has configured, as engine objects: its policy, its LLM access,
and the service's detector.

The LLM client comes from `engine.mitigation.llm`, which imports litellm; it is
imported inside `client_for`, so the web process and the detect worker (which
read policies here) never load litellm.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings

from tenants.models import LLMSettings, Policy, Tenant

from .engine.detectors.base import Detector
from .engine.detectors.registry import load_detector
from .engine.mitigation.llm_types import ModelConfig, Price, RetryPolicy
from .engine.modes import AUTO
from .engine.policy import PolicyDocument

if TYPE_CHECKING:
    from .engine.mitigation.llm import LLMClient


# --- policy -----------------------------------------------------------------


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
    if mode != AUTO and mode not in policy.allowed_modes:
        errors["mode"] = [
            f"mode '{mode}' is not allowed by this tenant's policy "
            f"(allowed: {', '.join(policy.allowed_modes)})."
        ]
    if decision and not any(d.name == decision for d in policy.decisions):
        errors["decision"] = [f"the policy has no decision named '{decision}'."]
    return errors


# --- LLM access -------------------------------------------------------------


def prices(llm: LLMSettings) -> dict[str, Price]:
    """Configured prices (USD per 1M tokens); the tenant's table wins over the deployment's."""
    table: dict[str, Price] = {}
    for entry in settings.TRUTHLENS["LLM_PRICES"]:  # "model=in:out"
        model, _, pair = entry.partition("=")
        p_in, _, p_out = pair.partition(":")
        table[model] = Price(float(p_in), float(p_out))
    for model, price in (llm.price_table or {}).items():
        table[model] = Price(float(price.get("input", 0)), float(price.get("output", 0)))
    return table


def model_config(llm: LLMSettings, name: str, max_tokens: int = 512) -> ModelConfig:
    return ModelConfig(
        model=name,
        api_base=llm.api_base or None,
        api_key=llm.api_key or None,
        timeout_s=llm.timeout_seconds,
        max_tokens=max_tokens,
    )


def client_for(llm: LLMSettings) -> LLMClient:
    """The tenant's client: its prices, and `max_retries` retries after the first attempt."""
    from .engine.mitigation.llm import LLMClient  # litellm: see the module docstring

    return LLMClient(prices=prices(llm), retry=RetryPolicy(attempts=llm.max_retries + 1))


# --- detector ---------------------------------------------------------------


def service_detector() -> Detector:
    """`TRUTHLENS_DETECTOR` at `TRUTHLENS_DETECTOR_DTYPE`, loaded once per process."""
    return load_detector(settings.TRUTHLENS["DETECTOR"], dtype=settings.TRUTHLENS["DETECTOR_DTYPE"])
