"""The gateway's writes: the verifications of one upstream reply and its LLM call."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from django.db import transaction

from engine import LLMCall
from tenants.models import ApiKey, Tenant

from ..models import LLMCallRecord, VerificationJob
from .create import NewVerification, create_verification


def verify_reply(
    tenant: Tenant,
    api_key: ApiKey | None,
    requests: Sequence[NewVerification],
    model: str,
    call: LLMCall,
) -> list[VerificationJob]:
    """A verification per checkable answer and the upstream call, billed once to the
    first of them, in one transaction (all queued, or none)."""
    with transaction.atomic():
        jobs = [create_verification(tenant, r, api_key=api_key)[0] for r in requests]
        if jobs:
            LLMCallRecord.objects.create(
                job=jobs[0],
                tenant=tenant,
                model=model,
                role="gateway",
                prompt_tokens=call.prompt_tokens,
                completion_tokens=call.completion_tokens,
                cost_usd=Decimal(str(round(call.cost_usd, 8))),
                latency_ms=int(call.latency_ms),
                own_key=call.own_key,
            )
    return jobs
