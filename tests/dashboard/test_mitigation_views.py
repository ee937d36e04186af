"""The detail page draws stored mitigation steps; the modes page draws bandit arms."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from verification.models import MitigationStep, ModeArm

from .conftest import ANSWER, make_job

pytestmark = pytest.mark.django_db

FIXED = "The Eiffel Tower was built from 1887 to 1889 and is 330 metres tall."


def _span(text: str, label="contradiction", confidence=0.9) -> dict:
    start = ANSWER.index(text)
    return {
        "start": start,
        "end": start + len(text),
        "text": text,
        "confidence": confidence,
        "label": label,
        "evidence": {"passage_index": 0, "start": 0, "end": 4, "text": "1887"},
        "reason": "",
    }


def test_refinement_iterations_are_shown_side_by_side_with_scores(client, owner_a, tenant_a):
    job = make_job(
        tenant_a.tenant, mode="standard", final_response=FIXED, final_score=0.08, iterations=1
    )
    call = {
        "model": "openai/gpt-4o-mini",
        "role": "refine",
        "prompt_tokens": 900,
        "completion_tokens": 60,
        "cost_usd": 0.0002,
        "latency_ms": 640.0,
        "error": None,
    }
    MitigationStep.objects.create(
        job=job,
        index=0,
        kind="final",
        text=ANSWER,
        score=0.91,
        spans=[_span("1950")],
        detail={"note": "original", "calls": []},
    )
    MitigationStep.objects.create(
        job=job,
        index=1,
        kind="refine",
        text=FIXED,
        score=0.08,
        spans=[],
        detail={"note": "converged", "calls": [call]},
        model="openai/gpt-4o-mini",
        cost_usd=Decimal("0.0002"),
        latency_ms=640,
    )
    client.force_login(owner_a)
    response = client.get(reverse("dashboard:verification", kwargs={"public_id": job.public_id}))
    iterations = response.context["mitigation"].iterations
    assert [(i.number, i.score) for i in iterations] == [(0, 0.91), (1, 0.08)]
    body = response.content.decode()
    assert "Iteration 1" in body
    assert "converged" in body
    assert "final score 0.08" in body
    assert 'class="span contradiction"' in body.split('id="iter-h"')[1]  # spans of iteration 0
    assert FIXED in body


def test_premium_second_opinions_and_judge_decisions(client, owner_a, tenant_a):
    job = make_job(tenant_a.tenant, mode="premium")
    verify_call = {
        "model": "anthropic/claude-3-5-haiku",
        "role": "verify",
        "prompt_tokens": 700,
        "completion_tokens": 90,
        "cost_usd": 0.0013,
        "latency_ms": 900.0,
        "error": None,
    }
    MitigationStep.objects.create(
        job=job,
        index=1,
        kind="refine",
        text=FIXED,
        score=0.1,
        detail={"note": "judge", "calls": [verify_call]},
    )
    MitigationStep.objects.create(
        job=job,
        index=2,
        kind="judge",
        text=FIXED,
        score=0.1,
        detail={
            "changes": [
                {
                    "kind": "replaced",
                    "start": 29,
                    "end": 36,
                    "before": "in 1950",
                    "after": "from 1887 to 1889",
                    "reason": "the context dates it 1887-1889",
                    "tier": "judge",
                }
            ],
            "stop_reason": "resolved",
            "warnings": [],
        },
    )
    client.force_login(owner_a)
    body = client.get(
        reverse("dashboard:verification", kwargs={"public_id": job.public_id})
    ).content.decode()
    assert "anthropic/claude-3-5-haiku" in body
    assert "Judge's decisions" in body
    assert "<del>in 1950</del>" in body
    assert "<ins>from 1887 to 1889</ins>" in body
    assert "the context dates it 1887-1889" in body


def test_modes_page_shows_each_arms_posterior(client, owner_a, tenant_a, tenant_b):
    ModeArm.objects.create(
        tenant=tenant_a.tenant,
        query_type="factual_qa",
        mode="standard",
        alpha=8,
        beta=3,
        pulls=9,
        reward_sum=6.3,
        last_rewards=[1, 0.6, 0.9],
    )
    ModeArm.objects.create(
        tenant=tenant_a.tenant, query_type="factual_qa", mode="premium", alpha=2, beta=2, pulls=2
    )
    ModeArm.objects.create(
        tenant=tenant_b.tenant, query_type="summarization", mode="lightweight", alpha=5, beta=1
    )
    client.force_login(owner_a)
    response = client.get(reverse("dashboard:modes"))
    groups = dict(response.context["groups"])
    assert list(groups) == ["factual_qa"]  # tenant B's arm is not shown
    standard = next(a for a in groups["factual_qa"] if a.mode == "standard")
    assert standard.mean == pytest.approx(8 / 11)
    assert standard.low < standard.mean < standard.high
    assert standard.recent_rewards == [1.0, 0.6, 0.9]
    assert standard.mean_reward == pytest.approx(0.7)
    body = response.content.decode()
    assert "0.727" in body
    assert "No bandit data yet" not in body


def test_each_call_is_attributed_to_the_model_it_went_to(client, owner_a, tenant_a):
    # given a round whose refinement went to the primary model and two calls to the judge
    job = make_job(tenant_a.tenant, mode="standard", final_response=FIXED, iterations=1)

    def call(model: str, role: str) -> dict:
        return {"model": model, "role": role, "cost_usd": 0.0001, "latency_ms": 100.0}

    MitigationStep.objects.create(
        job=job,
        index=1,
        kind="refine",
        text=FIXED,
        score=0.1,
        detail={
            "note": "converged",
            "calls": [
                call("openai/gpt-4o-mini", "refine"),
                call("openai/judge", "judge"),
                call("openai/judge", "judge"),
            ],
        },
        model="openai/gpt-4o-mini",
        cost_usd=Decimal("0.0003"),
        latency_ms=300,
    )
    client.force_login(owner_a)
    body = client.get(
        reverse("dashboard:verification", kwargs={"public_id": job.public_id})
    ).content.decode()
    # then the round names each model with its own calls, not all three on the first
    assert "openai/gpt-4o-mini · 1 call" in body
    assert "openai/judge · 2 calls" in body
    assert "openai/gpt-4o-mini · 3 calls" not in body
