"""Standard (self-refine) and no-LLM repair through real workers, with a local LLM server."""

from __future__ import annotations

import pytest

from tenants.models import Policy
from tests.conftest import client_for
from tests.fixtures.llm import configure_llm
from verification.models import LLMCallRecord, MitigationStep, ModeArm, UsageRecord, VerificationJob

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

CORRECTED = "The Eiffel Tower was built from 1887 to 1889 and is 330 metres tall."


def _job(public_id: str) -> VerificationJob:
    return VerificationJob.objects.get(pk=VerificationJob.parse_public_id(public_id))


def test_standard_mode_refines_the_answer_with_the_tenants_llm(
    start_worker, tenant_a, eiffel, fake_llm
):
    # given a tenant whose policy asks for self-refinement and whose LLM is the local server
    tenant, token = tenant_a
    Policy.objects.create(tenant=tenant, document={"default_mode": "standard"})
    configure_llm(tenant, fake_llm)
    fake_llm.script(CORRECTED)
    start_worker()
    # when
    response = client_for(token).post("/v1/verifications", eiffel.request(wait=30), format="json")
    # then the answer comes back corrected, with its trajectory and costs recorded
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["mode"] == "standard"
    assert body["mode_source"] == "policy"
    assert body["detected"] is True
    assert body["final_response"] == CORRECTED
    assert body["iterations"] >= 1
    assert response["X-TruthLens-Iterations"] == str(body["iterations"])
    job = _job(body["id"])
    calls = list(LLMCallRecord.objects.filter(job=job))
    assert len(calls) >= 1
    assert calls[0].prompt_tokens == 20
    assert calls[0].completion_tokens == 10
    usage = UsageRecord.objects.get(job=job)
    assert usage.llm_calls == len(calls)
    assert usage.tenant_provider_cost_usd == sum(c.cost_usd for c in calls)  # own key
    assert float(usage.tenant_provider_cost_usd) == pytest.approx(
        len(calls) * (20 * 1 + 10 * 2) / 1e6
    )
    assert body["usage"]["cost_usd"] == pytest.approx(float(usage.tenant_provider_cost_usd))
    assert body["usage"]["own_key_cost_usd"] == body["usage"]["cost_usd"]
    assert MitigationStep.objects.filter(job=job).count() >= 2
    prompt = fake_llm.requests[0]["messages"][-1]["content"]
    assert "1950" in prompt  # the refinement prompt names the flagged span
    arm = ModeArm.objects.get(tenant=tenant, mode="standard")
    assert arm.pulls == 1


def test_standard_mode_without_an_llm_repairs_from_the_evidence(start_worker, tenant_a):
    tenant, token = tenant_a
    Policy.objects.create(tenant=tenant, document={"default_mode": "standard"})
    start_worker()
    payload = {
        "context": ["The bridge opened in 1932. It is 503 metres long."],
        "query": "How long is the bridge?",
        "response": "The bridge opened in 1932. It is 650 metres long.",
        "wait": 30,
    }
    body = client_for(token).post("/v1/verifications", payload, format="json").json()
    assert body["status"] == "completed"
    assert body["detected"] is True
    assert body["final_response"] != payload["response"]
    assert "650" not in body["final_response"]
    assert LLMCallRecord.objects.count() == 0
