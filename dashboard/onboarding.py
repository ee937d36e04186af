"""The setup checklist a new member sees: each item is ticked from the tenant's data."""

from __future__ import annotations

from dataclasses import dataclass

from tenants.models import ApiKey, Tenant, WebhookEndpoint
from verification.models import VerificationJob
from verification.tenant_config import has_llm


@dataclass(frozen=True)
class Step:
    key: str
    title: str
    hint: str
    done: bool


def has_llm_provider(tenant: Tenant) -> bool:
    return has_llm(tenant.pk)


def checklist(tenant: Tenant) -> list[Step]:
    return [
        Step(
            "llm",
            "Add an LLM provider",
            "Refinement and premium cross-checking call your provider with your key.",
            has_llm_provider(tenant),
        ),
        Step(
            "key",
            "Create an API key",
            "Your application sends it as Authorization: Bearer tl_….",
            ApiKey.objects.filter(tenant=tenant).exists(),
        ),
        Step(
            "verification",
            "Run a first verification",
            "POST /v1/verifications with a context, a query and an answer.",
            VerificationJob.objects.filter(tenant=tenant).exists(),
        ),
        Step(
            "webhook",
            "Add a webhook",
            "Get verification.completed events pushed to your endpoint.",
            WebhookEndpoint.objects.filter(tenant=tenant).exists(),
        ),
    ]
