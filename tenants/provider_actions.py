"""Writes to a tenant's LLM providers, shared by the API and the dashboard.

Saving a provider makes sure the tenant has `LLMSettings` (the default refinement
model), so a new tenant's first provider makes standard and premium runnable. A
key is replaced in the same row update as the rest, so a job reading the provider
sees the old key or the new one, never none.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from .llm_providers import MODEL_NAME_RE, PREFIX_RE, LLMProvider
from .models import LLMSettings, Tenant

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
        settings_, _ = LLMSettings.objects.get_or_create(
            tenant=tenant, defaults={"default_model": (provider.model_ids or [""])[0]}
        )
        if not settings_.default_model and provider.model_ids:
            settings_.default_model = provider.model_ids[0]
            settings_.save(update_fields=["default_model"])
    return provider


def field_errors(
    tenant: Tenant, prefix: str, names: list[str], api_base: str, exclude: int | None = None
) -> dict[str, str]:
    """What is wrong with a provider's prefix, model names and API base ({} when fine);
    the API's serializer and the dashboard's form both ask here."""
    from django.conf import settings

    from verification.webhooks.urlguard import UnsafeUrl, check_url

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
            check_url(api_base, settings.TRUTHLENS["WEBHOOK_ALLOWED_HOSTS"])
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


def _plain(exc: Exception, provider: LLMProvider) -> str:
    """A provider's error in plain words."""
    import litellm

    base = provider.api_base or "the provider's default address"
    if isinstance(exc, litellm.AuthenticationError):
        return "The provider refused the API key (authentication failed). Replace the key."
    if isinstance(exc, litellm.NotFoundError):
        return "The provider does not know this model (not found). Check the model name."
    if isinstance(exc, litellm.RateLimitError):
        return "The provider is rate-limiting this key (429). Try again later."
    if isinstance(exc, litellm.Timeout):
        return f"No answer from {base} within {provider.timeout_seconds:g} s."
    if isinstance(exc, litellm.APIConnectionError):
        return f"Could not reach {base}: {str(exc).splitlines()[0][:300]}"
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else 'no detail'}"


def check_connection(provider: LLMProvider, model: str | None = None) -> ConnectionCheck:
    """One real, tiny call through litellm (at most 5 answer tokens, no retries):
    the model's answer, or the provider's error in plain words. Never raises."""
    import litellm  # the web process loads it here, as the gateway does

    model_id = provider.model_id(model) if model else (provider.model_ids or [""])[0]
    if not model_id:
        return ConnectionCheck(False, "", error="The provider serves no model yet: add one.")
    started = time.monotonic()
    try:
        response = litellm.completion(
            model=model_id,
            messages=[{"role": "user", "content": "Reply with the single word: ready"}],
            max_tokens=5,
            api_base=provider.api_base or None,
            api_key=provider.api_key or "none",  # openai/ needs some key, even locally
            timeout=provider.timeout_seconds,
            num_retries=0,
        )
    except Exception as exc:  # every provider failure becomes words, never a 500
        return ConnectionCheck(
            False, model_id, error=_plain(exc, provider), latency_ms=_ms(started)
        )
    answer = (response.choices[0].message.content or "").strip()
    return ConnectionCheck(True, model_id, answer=answer[:500], latency_ms=_ms(started))


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
