"""Planning a job, once: the policy decision, the mode and the model (`JobPlan`).

The pure part (resolving the policy, what a plan implies) is the engine's
`job_plan`; this adds what needs the database: the tenant's policy, the
bandit's choice for `auto`, and the tenant's default model.
"""

from __future__ import annotations

from engine import JobPlan, resolve_request

from ..mode_selection import choose_mode
from ..models import VerificationJob
from ..tenant_config import policy_for


def plan_request(
    job: VerificationJob,
    query_type: str,
    confidence: float,
    default_model: str = "",
) -> JobPlan:
    """The job's plan; `default_model` is the tenant's ("" when it has no LLM).

    Raises `KeyError` for a decision the policy no longer has and pydantic's
    `ValidationError` for a stored policy that no longer validates.
    """
    policy = policy_for(job.tenant)
    resolved = resolve_request(
        policy,
        query_type=query_type,
        domain=str((job.metadata or {}).get("domain", "")),
        text=job.query or "",
        decision=job.requested_decision or None,
        threshold=job.requested_threshold,
        grounded_by_search=not job.context,
    )
    choice = choose_mode(
        job.requested_mode,
        policy,
        resolved.mode,
        job.tenant,
        query_type,
        key=str(job.pk),
        llm=bool(default_model),
    )
    model = job.model or default_model
    return JobPlan.build(
        policy, resolved, query_type, confidence, choice.mode, choice.source, model=model
    )
