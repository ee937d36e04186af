"""Storing a mitigation's trajectory: steps for the dashboard, LLM calls for billing."""

from __future__ import annotations

from dataclasses import asdict
from decimal import Decimal

from engine import MitigationResult, change_step

from ..models import LLMCallRecord, MitigationStep, VerificationJob


def _dec(value: float) -> Decimal:
    return Decimal(str(round(value, 8)))


def store(job: VerificationJob, result: MitigationResult) -> float:
    """Write every iteration and every LLM call of `result`; returns the provider cost (USD)."""
    steps = [
        MitigationStep(
            job=job,
            index=it.index,
            kind="repair" if result.mode == "repair" else ("refine" if it.index else "final"),
            model=it.calls[0].model if it.calls else "",
            text=it.answer,
            score=it.score,
            spans=[asdict(s) for s in it.spans],
            detail={"note": it.note, "calls": [c.to_dict() for c in it.calls]},
            cost_usd=_dec(it.cost_usd),
            latency_ms=int(sum(c.latency_ms for c in it.calls)),
        )
        for it in result.iterations
    ]
    if result.changes:
        steps.append(
            MitigationStep(
                job=job,
                index=len(steps),
                kind=change_step(result.mode),
                text=result.final_response,
                score=result.final_score,
                detail={
                    "changes": [asdict(c) for c in result.changes],
                    "stop_reason": result.stop_reason,
                    "warnings": result.warnings,
                    "diagnostics": result.diagnostics,
                },
            )
        )
    MitigationStep.objects.bulk_create(steps)
    LLMCallRecord.objects.bulk_create(
        [
            LLMCallRecord(
                job=job,
                tenant_id=job.tenant_id,
                model=call.model,
                role=call.role,
                prompt_tokens=call.prompt_tokens,
                completion_tokens=call.completion_tokens,
                cost_usd=_dec(call.cost_usd),
                latency_ms=int(call.latency_ms),
                error=call.error or "",
                own_key=call.own_key,
            )
            for call in result.calls
        ]
    )
    return float(sum(call.cost_usd for call in result.calls))
