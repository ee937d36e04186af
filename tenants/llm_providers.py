"""A tenant's named LLM provider credentials, and which provider serves a model.

A provider is a litellm model prefix (`openai/`, `anthropic/`, …), an optional API
base, an API key (encrypted at rest, write-only), a timeout, retries, the models it
serves and prices for models litellm has no price for. A model id is the prefix
plus the model's name (`openai/gpt-4o-mini`); one tenant's providers never serve the
same id twice, so every model a policy names resolves to one provider's
credentials, and a model no provider serves is never called. The tenant's default
model is `Tenant.default_model`; the premium verifiers and judge are the policy's:
each may come from another provider.
"""

from __future__ import annotations

import re

from django.db import models
from django.utils import timezone

from security.crypto import EncryptedApiKey

#: litellm's provider prefixes look like `openai/` or `azure_ai/`.
PREFIX_RE = re.compile(r"^[a-z][a-z0-9_\-]{0,40}/$")
#: A model name within a provider: letters, digits and . _ - : / @ (no spaces, no markup).
MODEL_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-:/@]{0,199}$")


class LLMProvider(EncryptedApiKey, models.Model):
    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.CASCADE, related_name="llm_providers"
    )
    name = models.CharField(max_length=60)
    model_prefix = models.CharField(max_length=40, help_text="litellm prefix, e.g. openai/")
    model_names = models.JSONField(default=list, help_text="model names served, without the prefix")
    api_base = models.URLField(max_length=500, blank=True, default="")
    api_key_encrypted = models.TextField(blank=True, default="")
    timeout_seconds = models.FloatField(default=30)
    max_retries = models.PositiveIntegerField(default=3)
    price_table = models.JSONField(
        default=dict,
        blank=True,
        help_text='USD per 1M tokens for models litellm has no price for: {"m": {"input": 0.1, '
        '"output": 0.4}} (model names without the prefix)',
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "name"], name="uniq_llm_provider_name")
        ]
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.model_prefix})"

    def model_id(self, name: str) -> str:
        """The litellm id of one of its models (`openai/` + `gpt-4o-mini`)."""
        return name if name.startswith(self.model_prefix) else self.model_prefix + name

    @property
    def model_ids(self) -> list[str]:
        return [self.model_id(m) for m in self.model_names or []]


def provider_for(tenant_id: int, model_id: str) -> LLMProvider | None:
    """The tenant's provider serving `model_id`, if any."""
    for provider in LLMProvider.objects.filter(tenant_id=tenant_id):
        if model_id in provider.model_ids:
            return provider
    return None


def served_models(tenant_id: int) -> list[str]:
    """Every model id the tenant's providers serve, sorted."""
    ids = {m for p in LLMProvider.objects.filter(tenant_id=tenant_id) for m in p.model_ids}
    return sorted(ids)
