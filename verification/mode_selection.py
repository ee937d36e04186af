"""How a request's mitigation mode is chosen, and the Thompson-sampling state behind it.

The request's explicit mode wins, then the policy's (decision or default); `auto`
samples among the modes the policy allows, per tenant and query type. The math is
`engine.bandit`; here the arms are rows of `ModeArm`, updated with F()
expressions so concurrent workers never lose an update. Feedback is one more
observation per job: "correct" adds a success, "hallucinated" a failure, at most
once per job. The modes themselves are registered in `engine/modes.py`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import F

import engine
from engine import AUTO, BASE_MODE, PolicyDocument, runs_without_llm
from tenants.models import Tenant

from .models import ModeArm, VerificationJob


@dataclass(frozen=True)
class ModeChoice:
    mode: str
    source: str  # request | policy | bandit


def choose_mode(
    requested: str,
    policy: PolicyDocument,
    decision_mode: str,
    tenant: Tenant,
    query_type: str,
    key: str,
    llm: bool = True,
) -> ModeChoice:
    """The request's explicit mode wins; `auto` (from the request, decision or policy)
    samples among the modes the policy allows. Without an LLM (`llm` False) a mode
    that cannot run without one is never chosen: the policy's becomes the first
    `BASE_MODE` (the registry's mode that needs no LLM), and the bandit samples among runnable ones only, so
    a job never runs, or is billed, as a mode it could not run."""
    if requested and requested != AUTO:
        # refused at the request when there is no LLM; its provider may have gone since
        runnable = llm or runs_without_llm(requested)
        return ModeChoice(requested if runnable else BASE_MODE, "request")
    candidate = decision_mode if decision_mode != AUTO else policy.default_mode
    if candidate != AUTO:
        if not llm and not runs_without_llm(candidate):
            return ModeChoice(BASE_MODE, "policy")
        return ModeChoice(candidate, "policy")
    allowed = list(policy.allowed_modes) or [BASE_MODE]
    if not llm:
        allowed = [m for m in allowed if runs_without_llm(m)] or [BASE_MODE]
    return ModeChoice(choose(tenant, query_type, allowed, key), "bandit")


def _rng(key: str) -> random.Random:
    seed = settings.TRUTHLENS.get("BANDIT_SEED")
    # Seeded per job in tests (reproducible), from OS entropy in production.
    return random.Random(f"{seed}:{key}") if seed is not None else random.Random()


def choose(tenant: Tenant, query_type: str, allowed: list[str], key: str) -> str:
    arms = {
        arm.mode: (arm.alpha, arm.beta)
        for arm in ModeArm.objects.filter(tenant=tenant, query_type=query_type, mode__in=allowed)
    }
    return engine.choose_arm(arms, allowed, _rng(key))


def _observe(
    tenant_id: int, query_type: str, mode: str, d_alpha: int, d_beta: int, r: float
) -> None:
    arm, _ = ModeArm.objects.get_or_create(tenant_id=tenant_id, query_type=query_type, mode=mode)
    ModeArm.objects.filter(pk=arm.pk).update(
        alpha=F("alpha") + d_alpha,
        beta=F("beta") + d_beta,
        pulls=F("pulls") + 1,
        reward_sum=F("reward_sum") + r,
    )
    # A short, best-effort history for the dashboard (not used by the math).
    with transaction.atomic():
        locked = ModeArm.objects.select_for_update().get(pk=arm.pk)
        locked.last_rewards = ([round(r, 4)] + list(locked.last_rewards or []))[:20]
        locked.save(update_fields=["last_rewards"])


def record_outcome(
    job: VerificationJob, verified: bool, cost_usd: float, cost_weight: float
) -> float:
    """Reward the arm that served `job` (docs/policies.md "Mode selection (Thompson sampling)") and return
    the reward."""
    r = engine.arm_reward(verified, False, cost_usd, cost_weight)
    d_alpha, d_beta = engine.bernoulli_update(r, _rng(f"reward:{job.pk}"))
    _observe(job.tenant_id, job.query_type or "other", job.mode, d_alpha, d_beta, r)
    return r


def apply_feedback(job: VerificationJob, outcome: str) -> bool:
    """Count customer feedback once per job; returns False when it was already counted."""
    if not job.mode or job.status != "completed":
        return False
    claimed = VerificationJob.objects.filter(pk=job.pk, feedback_applied=False).update(
        feedback_applied=True
    )
    if claimed != 1:
        return False
    good = outcome == "correct"
    _observe(
        job.tenant_id, job.query_type or "other", job.mode, int(good), int(not good), float(good)
    )
    return True
