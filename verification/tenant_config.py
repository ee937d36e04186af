"""What a tenant has configured, as engine objects: its policy, its LLM access,
and the service's detector.

The LLM client comes from `engine.mitigation.llm`, which imports litellm; it is
imported inside `client_for`, so the web process and the detect worker (which
read policies here) never load litellm.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings

from engine import (
    AUTO,
    Available,
    Detector,
    ModelConfig,
    PolicyDocument,
    Price,
    load_detector,
    runs_without_llm,
)
from knowledge.models import KnowledgeBase
from tenants.llm_providers import LLMProvider, provider_for, served_models
from tenants.models import Policy, Tenant

if TYPE_CHECKING:
    from engine import LLMClient


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
#
# Only the tenant's own providers are ever called: a model none of them serves is
# refused, never sent with the deployment's environment keys (OPENAI_API_KEY...).


def default_model(tenant_id: int) -> str:
    """The tenant's default model ("" while it has no provider)."""
    found = Tenant.objects.filter(pk=tenant_id).values_list("default_model", flat=True).first()
    return found or ""


def has_llm(tenant_id: int) -> bool:
    """Can the tenant's jobs call an LLM (it has a default model, which a provider serves)?"""
    return bool(default_model(tenant_id))


def available_to(tenant: Tenant) -> Available:
    """What the tenant can run, for the policy checks (`engine.policy_checks`)."""
    return Available(
        models=frozenset(usable_models(tenant.pk)),
        llm=has_llm(tenant.pk),
        knowledge_bases=knowledge_base_names(tenant.pk),
    )


def knowledge_base_names(tenant_id: int) -> frozenset[str]:
    """Every way the tenant's policy may name one of its knowledge bases (as
    `stages.ground.knowledge_base_for` resolves them): kb_<hex>, the UUID, the name."""
    names: set[str] = set()
    for pk, name in KnowledgeBase.objects.filter(tenant_id=tenant_id).values_list("pk", "name"):
        names |= {f"kb_{pk.hex}", pk.hex, str(pk), name}
    return frozenset(names)


def usable_models(tenant_id: int) -> list[str]:
    """Models the tenant can name in its policy: those its providers serve."""
    return served_models(tenant_id)


def prices(tenant_id: int) -> dict[str, Price]:
    """Configured prices (USD per 1M tokens): the deployment's, then the tenant's
    providers' (by model id), each winning over the one before."""
    table: dict[str, Price] = {}
    for entry in settings.TRUTHLENS["LLM_PRICES"]:  # "model=in:out"
        model, _, pair = entry.partition("=")
        p_in, _, p_out = pair.partition(":")
        table[model] = Price(float(p_in), float(p_out))
    for provider in LLMProvider.objects.filter(tenant_id=tenant_id):
        for model, price in (provider.price_table or {}).items():
            table[provider.model_id(model)] = _price(price)
    return table


def _price(entry: dict) -> Price:
    return Price(float(entry.get("input", 0)), float(entry.get("output", 0)))


def not_served(name: str) -> str:
    return f"model {name!r} is not served by any of this tenant's LLM providers"


def model_config(tenant_id: int, name: str, max_tokens: int = 512) -> ModelConfig:
    """How to call model `name`: with the base, key, timeout and retries of the provider
    serving it. A model no provider serves gets a config the client refuses to call
    (`ModelConfig.refusal`), so a job degrades as on any failed call."""
    provider = provider_for(tenant_id, name) if name else None
    if provider is None:
        return ModelConfig(model=name, refusal=not_served(name), max_tokens=max_tokens)
    return ModelConfig(
        model=name,
        api_base=provider.api_base or None,
        # Always a key: without one litellm would read the environment's provider key.
        api_key=provider.api_key or "none",
        timeout_s=provider.timeout_seconds,
        max_retries=provider.max_retries,
        max_tokens=max_tokens,
        # Every call goes through one of the tenant's own providers (its key, its server):
        # the tenant pays the provider, we don't (environment keys are never used).
        own_key=True,
    )


def client_for(tenant_id: int) -> LLMClient:
    """The tenant's client: its prices; each call retries as its provider says
    (`ModelConfig.max_retries`), within the provider's timeout."""
    from engine import LLMClient

    from .egress import guard_litellm

    guard_litellm()
    return LLMClient(prices=prices(tenant_id))


# --- detector ---------------------------------------------------------------


def service_detector() -> Detector:
    """`TRUTHLENS_DETECTOR` at `TRUTHLENS_DETECTOR_DTYPE`, loaded once per process."""
    return load_detector(settings.TRUTHLENS["DETECTOR"], dtype=settings.TRUTHLENS["DETECTOR_DTYPE"])
