"""Checks of a tenant's LLM provider that need the address guard or a real call,
shared by the API and the dashboard (the writes are in `tenants/provider_actions.py`)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from security.urlguard import UnsafeUrl
from tenants.llm_providers import MODEL_NAME_RE, PREFIX_RE, LLMProvider
from tenants.models import Tenant
from tenants.provider_actions import clashing_models

from .egress import check_api_base, guard_litellm


def field_errors(
    tenant: Tenant, prefix: str, names: list[str], api_base: str, exclude: int | None = None
) -> dict[str, str]:
    """What is wrong with a provider's prefix, model names and API base ({} when fine);
    the API's serializer and the dashboard's form both ask here."""
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
    from .llm_errors import plain_error  # imports litellm: only when a connection is tested

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
