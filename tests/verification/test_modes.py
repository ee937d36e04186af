"""Mode selection, bandit updates and the mitigate stage, run in-process on real Postgres."""

from __future__ import annotations

import pytest

from tenants.models import Policy
from tests.fixtures.llm import configure_llm
from verification import mode_selection
from verification.actions.claim import claim
from verification.actions.create import NewVerification, create_verification
from verification.actions.stages import claim_mitigation
from verification.models import LLMCallRecord, MitigationStep, ModeArm, UsageRecord
from verification.stages import mitigate as mitigate_stage
from verification.stages.detect import process_jobs

pytestmark = pytest.mark.django_db

CONTEXT = ["The Eiffel Tower was built from 1887 to 1889. It is 330 metres tall."]
WRONG = "The Eiffel Tower was built in 1950. It is 330 metres tall."
RIGHT = "The Eiffel Tower was built from 1887 to 1889. It is 330 metres tall."


def _detect(tenant, response=WRONG, mode="auto"):
    job, _ = create_verification(
        tenant,
        NewVerification(
            context=CONTEXT, query="When was the Eiffel Tower built?", response=response, mode=mode
        ),
    )
    process_jobs([claim(job.pk)])
    job.refresh_from_db()
    return job


def test_auto_mode_is_chosen_by_thompson_sampling_among_allowed_modes(tenant_a, settings):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "BANDIT_SEED": "7"}
    tenant = tenant_a.tenant
    Policy.objects.create(
        tenant=tenant,
        document={"default_mode": "auto", "allowed_modes": ["lightweight", "standard"]},
    )
    # a strongly better lightweight arm should win nearly always
    ModeArm.objects.create(
        tenant=tenant, query_type="factual_qa", mode="lightweight", alpha=50, beta=1
    )
    ModeArm.objects.create(
        tenant=tenant, query_type="factual_qa", mode="standard", alpha=1, beta=50
    )
    job = _detect(tenant, response=RIGHT)
    assert job.mode_source == "bandit"
    assert job.mode == "lightweight"
    assert ModeArm.objects.get(tenant=tenant, mode="lightweight").pulls == 1


def test_the_same_seed_and_job_give_the_same_choice(tenant_a, settings):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "BANDIT_SEED": "11"}
    picks = {
        mode_selection.choose(
            tenant_a.tenant, "factual_qa", ["lightweight", "standard", "premium"], "k"
        )
        for _ in range(5)
    }
    assert len(picks) == 1


def test_feedback_updates_the_arm_once_per_job(tenant_a, client_a):
    tenant = tenant_a.tenant
    job = _detect(tenant, response=RIGHT, mode="lightweight")
    arm = ModeArm.objects.get(tenant=tenant, mode="lightweight")
    before = (arm.alpha, arm.beta, arm.pulls)
    url = f"/v1/verifications/{job.public_id}/feedback"
    assert client_a.post(url, {"outcome": "hallucinated"}, format="json").status_code == 201
    assert client_a.post(url, {"outcome": "hallucinated"}, format="json").status_code == 201
    arm.refresh_from_db()
    assert (arm.alpha, arm.beta, arm.pulls) == (before[0], before[1] + 1, before[2] + 1)


def test_premium_mode_cross_checks_and_lets_the_judge_replace_the_claim(tenant_a, fake_llm):
    tenant = tenant_a.tenant
    Policy.objects.create(
        tenant=tenant,
        document={
            "premium": {"verification_models": ["openai/verifier"], "judge_model": "openai/judge"}
        },
    )
    configure_llm(tenant, fake_llm)

    def responder(body):
        from tests.fixtures.fake_llm import Reply

        model = body["model"]
        if model == "verifier":
            return Reply(content=RIGHT)
        # the judge answers with its verdict for each disputed claim
        prompt = body["messages"][-1]["content"]
        import json as _json
        import re

        ids = re.findall(r'"id":\s*(\d+)', prompt) or ["0"]
        verdicts = [
            {
                "id": int(i),
                "action": "replace",
                "replacement": "The Eiffel Tower was built from 1887 to 1889.",
            }
            for i in ids
        ]
        return Reply(content=_json.dumps({"decisions": verdicts}))

    fake_llm.responder = responder
    job = _detect(tenant, mode="premium")
    assert job.stage == "mitigate"
    assert job.status == "running"
    claimed = claim_mitigation(job.pk)
    assert mitigate_stage.run(claimed)
    job.refresh_from_db()
    assert job.status == "completed"
    assert "1950" not in job.final_response
    calls = LLMCallRecord.objects.filter(job=job)
    roles = set(calls.values_list("role", flat=True))
    assert len(roles) >= 2, roles
    usage = UsageRecord.objects.get(job=job)
    assert usage.llm_calls == calls.count()
    # the tenant's own key: its cost is reported, not passed through
    assert usage.tenant_provider_cost_usd == sum(c.cost_usd for c in calls)
    assert usage.provider_cost_usd == 0
    assert MitigationStep.objects.filter(job=job).exists()


def test_a_per_request_budget_stops_mitigation_before_any_call(tenant_a, fake_llm):
    tenant = tenant_a.tenant
    Policy.objects.create(
        tenant=tenant, document={"default_mode": "standard", "budgets": {"per_request_usd": 0.0}}
    )
    configure_llm(tenant, fake_llm)
    fake_llm.script(RIGHT)
    job = _detect(tenant, mode="standard")
    assert mitigate_stage.run(claim_mitigation(job.pk))
    job.refresh_from_db()
    assert job.status == "completed"
    assert job.final_response.startswith(WRONG)
    assert "could not be fully verified" in job.final_response  # the disclaimer
    # the budget stop is a diagnostic for operators; the end user gets the disclaimer
    assert any("budget" in d for d in job.diagnostics), job.diagnostics
    assert "budget" not in job.warning.lower()
    assert "could not be fully verified" in job.warning
    assert fake_llm.requests == []
    assert UsageRecord.objects.get(job=job).llm_calls == 0


def test_the_cascade_sends_only_uncertain_spans_to_the_judge(tenant_a, fake_llm):
    import json as _json

    from tests.fixtures.fake_llm import Reply

    tenant = tenant_a.tenant
    # a band that covers every span the lexical detector produces, so the judge decides
    Policy.objects.create(
        tenant=tenant,
        document={
            "default_mode": "lightweight",
            "cascade": {"enabled": True, "low": 0.0, "high": 1.0},
        },
    )
    configure_llm(tenant, fake_llm)

    def judge(body):
        import re

        ids = [int(i) for i in re.findall(r'^(\d+)\. "', body["messages"][-1]["content"], re.M)]
        verdicts = [{"id": i, "verdict": "supported"} for i in ids]
        return Reply(content=_json.dumps({"spans": verdicts}))

    fake_llm.responder = judge
    job = _detect(tenant, mode="lightweight")
    assert job.stage == "mitigate"
    assert mitigate_stage.run(claim_mitigation(job.pk))
    job.refresh_from_db()
    assert job.status == "completed"
    tiers = {d["tier"] for d in job.cascade["decisions"]}
    assert tiers == {"llm"}
    # the judge cleared every span, so nothing is left flagged
    assert job.detected is False
    assert job.spans.count() == 0
    call = LLMCallRecord.objects.get(job=job)
    assert call.role == "cascade"
    assert job.cascade["cost_usd"] == pytest.approx(float(call.cost_usd))
    assert UsageRecord.objects.get(job=job).llm_calls == 1


def test_a_batch_looks_up_default_models_once_not_per_job(tenant_a, tenant_b, fake_llm):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    # given a batch of jobs from two tenants, one of which has an LLM
    configure_llm(tenant_a.tenant, fake_llm)
    jobs = []
    for tenant in (tenant_a.tenant, tenant_a.tenant, tenant_b.tenant):
        job, _ = create_verification(
            tenant, NewVerification(context=CONTEXT, response=WRONG, mode="lightweight")
        )
        jobs.append(claim(job.pk))
    # when the batch is detected and routed
    with CaptureQueriesContext(connection) as queries:
        process_jobs(jobs)
    # then the tenants' default models were read once for the whole batch
    llm_reads = [q for q in queries.captured_queries if 'AS "default_model"' in q["sql"]]
    assert len(llm_reads) == 1, [q["sql"] for q in llm_reads]
    for job in jobs:
        job.refresh_from_db()
        assert job.status == "completed"
        assert job.mode == "lightweight"
