"""The detect stage scores a claimed micro-batch with ONE detector call, across tenants
and policies, and each job's result is the one it gets when processed alone."""

from __future__ import annotations

import pytest

from tenants.models import Policy
from verification.actions.claim import claim, claim_more
from verification.actions.create import NewVerification, create_verification
from verification.stages import detect as detect_stage
from verification.tenant_config import service_detector

pytestmark = pytest.mark.django_db

CONTEXT = ["The Eiffel Tower was built from 1887 to 1889. It is 330 metres tall."]
ANSWERS = [
    "The Eiffel Tower was built in 1950. It is 330 metres tall.",
    "The Eiffel Tower was built from 1887 to 1889. It is 330 metres tall.",
]


class CountingDetector:
    """The service's detector, counting `predict` calls and the items of each."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name
        self.languages = inner.languages
        self.calls: list[int] = []

    def predict(self, items):
        self.calls.append(len(items))
        return self.inner.predict(items)


def _jobs(tenants):
    jobs = []
    for tenant in tenants:
        for answer in ANSWERS:
            job, _ = create_verification(
                tenant,
                NewVerification(context=CONTEXT, query="When was it built?", response=answer),
            )
            jobs.append(job)
    return jobs


def test_one_detector_call_for_a_batch_of_two_tenants_with_different_policies(
    tenant_a, tenant_b, monkeypatch
):
    Policy.objects.create(tenant=tenant_a.tenant, document={"default_mode": "lightweight"})
    Policy.objects.create(
        tenant=tenant_b.tenant,
        document={"default_mode": "lightweight", "threshold": 0.2, "evidence": "selected"},
    )
    counting = CountingDetector(service_detector())
    monkeypatch.setattr(detect_stage, "service_detector", lambda: counting)

    # alone: one job per batch, as a worker with batch size 1 runs them
    alone = _jobs([tenant_a.tenant, tenant_b.tenant])
    for job in alone:
        detect_stage.process_jobs([claim(job.pk)])
    assert counting.calls == [1, 1, 1, 1]

    counting.calls.clear()
    batched = _jobs([tenant_a.tenant, tenant_b.tenant])
    first = claim(batched[0].pk)
    claimed = [first] + claim_more(7, exclude=first.pk)
    assert {j.pk for j in claimed} == {j.pk for j in batched}
    detect_stage.process_jobs(claimed)
    assert counting.calls == [4]  # every job of both policies in one call

    for one, together in zip(alone, batched, strict=True):
        one.refresh_from_db()
        together.refresh_from_db()
        assert together.status == one.status == "completed"
        assert together.score == pytest.approx(one.score, abs=1e-9)
        assert together.detected == one.detected
        assert together.threshold == one.threshold
        assert together.coverage == one.coverage
    thresholds = {j.tenant_id: j.threshold for j in batched}
    assert thresholds[tenant_b.tenant.pk] == 0.2 != thresholds[tenant_a.tenant.pk]
