"""Writes to a tenant's LLM providers, shared by the API and the dashboard.

The checks that need the address guard or a real LLM call (`field_errors`,
`check_connection`) are in `verification/provider_checks.py`: tenants never imports
verification.

Saving a provider gives a tenant without a default model its first model, so a new
tenant's first provider makes standard and premium runnable. A
key is replaced in the same row update as the rest, so a job reading the provider
sees the old key or the new one, never none.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from . import auth_cache
from .llm_providers import LLMProvider, served_models
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


def clashing_models(tenant: Tenant, ids: list[str], exclude: int | None = None) -> list[str]:
    """Those of `ids` another of the tenant's providers already serves."""
    others = LLMProvider.objects.filter(tenant=tenant).exclude(pk=exclude)
    taken = {m: p.name for p in others for m in p.model_ids}
    return [f"{m} (served by {taken[m]})" for m in ids if m in taken]
