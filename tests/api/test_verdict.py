"""The verdict field: hallucinated, faithful or uncertain, through the API."""

from __future__ import annotations

import pytest

from tenants.models import Policy
from verification.actions.claim import claim
from verification.models import VerificationJob
from verification.stages.detect import process_jobs

pytestmark = pytest.mark.django_db


def _verify(client, body) -> dict:
    job_id = client.post("/v1/verifications", body, format="json").json()["id"]
    process_jobs([claim(VerificationJob.parse_public_id(job_id))])
    return client.get(f"/v1/verifications/{job_id}").json()


def test_a_contradicted_answer_is_hallucinated(client_a):
    body = {"context": ["Paris is the capital of France."], "response": "Paris is in 1950."}
    got = _verify(
        client_a,
        {
            **body,
            "response": "The tower was built in 1950.",
            "context": ["The Eiffel Tower was built from 1887 to 1889."],
        },
    )
    assert got["verdict"] == "hallucinated"
    assert got["detected"] is True


def test_a_policy_band_makes_an_unsure_answer_uncertain_and_may_flag_it(client_a, tenant_a):
    body = {
        "context": ["The Eiffel Tower was built from 1887 to 1889 in Paris."],
        "response": "The Eiffel Tower in Paris was built from 1887 to 1889 and is beloved.",
    }
    plain = _verify(client_a, body)
    assert plain["verdict"] in ("faithful", "hallucinated")
    Policy.objects.create(
        tenant=tenant_a.tenant,
        document={"uncertain_below": 1.0, "uncertain_above": 1.0, "on_uncertain": "flag"},
    )
    banded = _verify(client_a, {**body, "metadata": {"second": True}})
    assert banded["verdict"] == "uncertain"
    assert banded["detected"] is True
    assert banded["score"] == plain["score"]
