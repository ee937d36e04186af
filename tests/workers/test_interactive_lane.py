"""A client that waits on its answer never queues behind another tenant's batch: a real
worker reads the interactive queue first, whatever waits in the batch queue."""

from __future__ import annotations

import pytest

from tests.fixtures.workers import wait_until
from verification.models import VerificationJob

FLOOD = 40


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_waiting_request_is_verified_before_another_tenants_earlier_batch(
    client_a, client_b, tenant_b, eiffel, start_worker
):
    # given: tenant A queued a batch, then tenant B asked and waited (no worker yet: 202)
    for i in range(FLOOD):
        queued = client_a.post(
            "/v1/verifications", eiffel.request(metadata={"i": i}), format="json"
        )
        assert queued.status_code == 202
    waited = client_b.post("/v1/verifications", eiffel.request(wait=0.2), format="json")
    assert waited.status_code == 202
    # when
    start_worker(TRUTHLENS_DETECT_BATCH_SIZE="4")
    assert wait_until(
        lambda: not VerificationJob.objects.exclude(status="completed").exists(), timeout=120
    )
    # then: B's job was the first finished; A's batch followed
    b_job = VerificationJob.objects.get(tenant=tenant_b.tenant)
    a_first = VerificationJob.objects.exclude(pk=b_job.pk).order_by("completed_at").first()
    assert b_job.interactive
    assert b_job.completed_at < a_first.completed_at
