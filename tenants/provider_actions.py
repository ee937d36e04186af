"""Writes to a tenant's LLM providers, shared by the API and the dashboard.

Saving a provider gives a tenant without a default model its first model, so a new
tenant's first provider makes standard and premium runnable. A
key is replaced in the same row update as the rest, so a job reading the provider
sees the old key or the new one, never none.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from . import auth_cache
from .llm_providers import MODEL_NAME_RE, PREFIX_RE, LLMProvider, served_models
from .models import Tenant

FIELDS = (
    "name", "model_prefix", "model_names", "api_base", "timeout_seconds", "max_retries",
    "price_table",
)  # fmt: skip


def save_provider(tenant: Tenant, data: dict[str, Any], provider: LLMProvider | None = None):
    """Create (`provider` None) or update a provider from validated `data`; an
    `api_key` in `data` replaces the stored one."""
    with transaction.atomic():
        if provider is None:
            provider = LLMProvider(tenant=tenant)
        for field in FIELDS:
            if field in data:
                setattr(provider, field, data[field])
        if data.get("api_key"):
            provider.api_key = data["api_key"]
        provider.save()
        _keep_default_served(tenant)
    return provider


def delete_provider(tenant: Tenant, provider: LLMProvider) -> None:
    """Delete a provider; a default model it served passes to another provider's model."""
    with transaction.atomic():
        provider.delete()
        _keep_default_served(tenant)


def _keep_default_served(tenant: Tenant) -> None:
    """The tenant's default model is one its providers serve: the first served model
    when it has none or its provider stopped serving it, "" when none is served."""
    served = served_models(tenant.pk)
    current = Tenant.objects.filter(pk=tenant.pk).values_list("default_model", flat=True)[0]
    if current in served:
        return
    first = next(
        (m for p in LLMProvider.objects.filter(tenant=tenant).order_by("pk") for m in p.model_ids),
        "",
    )
    Tenant.objects.filter(pk=tenant.pk).update(default_model=first)
    auth_cache.invalidate()  # the API reads default_model from the cached tenant
    tenant.default_model = first


def field_errors(
    tenant: Tenant, prefix: str, names: list[str], api_base: str, exclude: int | None = None
) -> dict[str, str]:
    """What is wrong with a provider's prefix, model names and API base ({} when fine);
    the API's serializer and the dashboard's form both ask here."""
    from verification.egress import check_api_base
    from verification.webhooks.urlguard import UnsafeUrl

    errors: dict[str, str] = {}
    if not PREFIX_RE.match(prefix or ""):
        errors["model_prefix"] = (
            "a litellm provider prefix: lower-case letters, digits, _ or -, ending in / "
            "(for example openai/)."
        )
    bad = [n for n in names if not MODEL_NAME_RE.match(n)]
    if not names:
        errors["model_names"] = "name at least one model."
    elif bad:
        errors["model_names"] = (
            f"not a model name: {', '.join(repr(b) for b in bad)} (letters, digits and "
            ". _ - : / @ only)."
        )
    elif "model_prefix" not in errors:
        ids = [n if n.startswith(prefix) else prefix + n for n in names]
        if clash := clashing_models(tenant, ids, exclude):
            errors["model_names"] = f"already served: {', '.join(clash)}."
    if api_base:
        try:
            check_api_base(api_base)
        except UnsafeUrl as exc:
            errors["api_base"] = str(exc)
    return errors


def clashing_models(tenant: Tenant, ids: list[str], exclude: int | None = None) -> list[str]:
    """Those of `ids` another of the tenant's providers already serves."""
    others = LLMProvider.objects.filter(tenant=tenant).exclude(pk=exclude)
    taken = {m: p.name for p in others for m in p.model_ids}
    return [f"{m} (served by {taken[m]})" for m in ids if m in taken]


@dataclass(frozen=True)
class ConnectionCheck:
    ok: bool
    model: str
    answer: str = ""
    error: str = ""
    latency_ms: int = 0


def check_connection(provider: LLMProvider, model: str | None = None) -> ConnectionCheck:
    """One real, tiny call through litellm (at most 5 answer tokens, no retries, the
    address checked at this moment): the model's answer, or the provider's error in
    plain words. Never raises."""
    from verification.egress import check_api_base, guard_litellm
    from verification.llm_errors import plain_error
    from verification.webhooks.urlguard import UnsafeUrl

    model_id = provider.model_id(model) if model else (provider.model_ids or [""])[0]
    if not model_id:
        return ConnectionCheck(False, "", error="The provider serves no model yet: add one.")
    if provider.api_base:
        try:
            check_api_base(provider.api_base)
        except UnsafeUrl as exc:
            return ConnectionCheck(False, model_id, error=f"The API base is not allowed: {exc}.")
    import litellm  # the web process loads it here, as the gateway does

    guard_litellm()
    started = time.monotonic()
    try:
        response = litellm.completion(
            model=model_id,
            messages=[{"role": "user", "content": "Reply with the single word: ready"}],
            max_tokens=5,
            api_base=provider.api_base or None,
            api_key=provider.api_key or "none",  # never the environment's key
            timeout=provider.timeout_seconds,
            num_retries=0,
            max_retries=0,
        )
    except Exception as exc:  # every provider failure becomes words, never a 500
        base = provider.api_base or "the provider's default address"
        error = plain_error(exc, base, provider.timeout_seconds)
        return ConnectionCheck(False, model_id, error=error, latency_ms=_ms(started))
    answer = (response.choices[0].message.content or "").strip()
    return ConnectionCheck(True, model_id, answer=answer[:500], latency_ms=_ms(started))


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
