"""What a tenant has configured, as engine objects: its policy, its LLM access,
and the service's detector.

The LLM client comes from `engine.mitigation.llm`, which imports litellm; it is
imported inside `client_for`, so the web process and the detect worker (which
read policies here) never load litellm.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings

from tenants.llm_providers import LLMProvider, provider_for, served_models
from tenants.models import LLMSettings, Policy, Tenant

from .engine.detectors.base import Detector
from .engine.detectors.registry import load_detector
from .engine.mitigation.llm_types import ModelConfig, Price, RetryPolicy
from .engine.modes import AUTO, runs_without_llm
from .engine.policy import PolicyDocument
from .engine.policy_checks import Available

if TYPE_CHECKING:
    from .engine.mitigation.llm import LLMClient


# --- policy -----------------------------------------------------------------


def policy_for(tenant: Tenant) -> PolicyDocument:
    try:
        document = tenant.policy.document
    except Policy.DoesNotExist:
        return PolicyDocument()
    return PolicyDocument.model_validate(document or {})


def request_errors(
    policy: PolicyDocument, mode: str, decision: str | None = None, *, llm: bool = True
) -> dict:
    """Field errors for a request's explicit mode and decision under `policy` ({} when fine).

    A requested mode must be one the policy allows, and one that can run: a mode
    that only works with an LLM is refused when the tenant has none (`llm`; the
    standard mode still runs, with its no-LLM repair). A named decision must exist.
    Shared by `POST /v1/verifications` and the gateway's `X-TruthLens-Mode`.
    """
    errors: dict[str, list[str]] = {}
    if mode != AUTO and mode not in policy.allowed_modes:
        errors["mode"] = [
            f"mode '{mode}' is not allowed by this tenant's policy "
            f"(allowed: {', '.join(policy.allowed_modes)})."
        ]
    elif mode != AUTO and not llm and not runs_without_llm(mode):
        errors["mode"] = [
            f"mode '{mode}' needs an LLM and this tenant has none configured: add a provider "
            "(POST /v1/llm-providers, or the dashboard's LLM providers page)."
        ]
    if decision and not any(d.name == decision for d in policy.decisions):
        errors["decision"] = [f"the policy has no decision named '{decision}'."]
    return errors


# --- LLM access -------------------------------------------------------------


def has_llm(tenant_id: int) -> bool:
    """Can the tenant's jobs call an LLM (a default model, from a provider or the
    legacy single setting)?"""
    return LLMSettings.objects.filter(tenant_id=tenant_id).exclude(default_model="").exists()


def available_to(tenant: Tenant) -> Available:
    """What the tenant can run, for the policy checks (`engine.policy_checks`)."""
    return Available(models=frozenset(usable_models(tenant.pk)), llm=has_llm(tenant.pk))


def usable_models(tenant_id: int) -> list[str]:
    """Models the tenant can name in its policy: those its providers serve, its
    default model, and those the deployment's price table knows."""
    names = set(served_models(tenant_id))
    llm = LLMSettings.objects.filter(tenant_id=tenant_id).first()
    if llm is not None and llm.default_model:
        names.add(llm.default_model)
    names.update(entry.partition("=")[0] for entry in settings.TRUTHLENS["LLM_PRICES"])
    return sorted(n for n in names if n)


def prices(llm: LLMSettings) -> dict[str, Price]:
    """Configured prices (USD per 1M tokens): the deployment's, then the tenant's
    providers' (by model id), then its own table, each winning over the one before."""
    table: dict[str, Price] = {}
    for entry in settings.TRUTHLENS["LLM_PRICES"]:  # "model=in:out"
        model, _, pair = entry.partition("=")
        p_in, _, p_out = pair.partition(":")
        table[model] = Price(float(p_in), float(p_out))
    for provider in LLMProvider.objects.filter(tenant_id=llm.tenant_id):
        for model, price in (provider.price_table or {}).items():
            table[provider.model_id(model)] = _price(price)
    for model, price in (llm.price_table or {}).items():
        table[model] = _price(price)
    return table


def _price(entry: dict) -> Price:
    return Price(float(entry.get("input", 0)), float(entry.get("output", 0)))


def model_config(llm: LLMSettings, name: str, max_tokens: int = 512) -> ModelConfig:
    """How to call model `name`: with the credentials of the provider serving it, or
    the tenant's legacy single setting when none does."""
    source: LLMSettings | LLMProvider = provider_for(llm.tenant_id, name) or llm
    api_key = source.api_key or None
    return ModelConfig(
        model=name,
        api_base=source.api_base or None,
        api_key=api_key,
        timeout_s=source.timeout_seconds,
        max_tokens=max_tokens,
        # The tenant's key, or its own server: the tenant pays the provider, we don't.
        own_key=bool(api_key or source.api_base),
    )


def client_for(llm: LLMSettings) -> LLMClient:
    """The tenant's client: its prices, and `max_retries` retries after the first
    attempt (the most any of its providers asks for)."""
    from .engine.mitigation.llm import LLMClient  # litellm: see the module docstring

    retries = max(
        [llm.max_retries]
        + [p.max_retries for p in LLMProvider.objects.filter(tenant_id=llm.tenant_id)]
    )
    return LLMClient(prices=prices(llm), retry=RetryPolicy(attempts=retries + 1))


# --- detector ---------------------------------------------------------------


def service_detector() -> Detector:
    """`TRUTHLENS_DETECTOR` at `TRUTHLENS_DETECTOR_DTYPE`, loaded once per process."""
    return load_detector(settings.TRUTHLENS["DETECTOR"], dtype=settings.TRUTHLENS["DETECTOR_DTYPE"])
