"""The sync and async clients against the live server and a real worker."""

from __future__ import annotations

import asyncio

import pytest
from truthlens import AsyncTruthLens, Verification

from tests.fixtures.examples import EIFFEL
from verification.models import Feedback

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _eiffel(**fields):
    return {
        "context": list(EIFFEL.context),
        "query": EIFFEL.query,
        "response": EIFFEL.response,
        **fields,
    }


def test_verify_waits_for_the_result_then_feedback_usage_and_billing(worker_server, client):
    # when
    result = client.verify(**_eiffel())
    # then
    assert isinstance(result, Verification)
    assert result.status == "completed"
    assert result.detected is True
    assert not result.passed
    [span] = [s for s in result.spans if s.text == "1950"]
    assert span.label == "contradiction"
    assert EIFFEL.response[span.start : span.end] == "1950"
    assert result.usage.detector_tokens > 0
    # and the same finished job gets feedback, and shows in usage and billing
    feedback = client.verifications.feedback(result.id, "correct", comment="right call")
    assert (feedback.verification, feedback.outcome) == (result.id, "correct")
    assert Feedback.objects.get().comment == "right call"
    usage = client.usage.get()
    assert usage.verifications == 1
    assert sum(line.verifications for line in usage.by_mode.values()) == 1
    assert client.billing.report(usage.month)["month"] == usage.month
    assert "," in client.billing.report_csv(usage.month).splitlines()[0]


def test_verify_polls_when_the_job_outlasts_the_servers_wait(server, client, start_worker):
    # given a job accepted while no worker runs: it stays queued
    queued = client.verifications.create(**_eiffel())
    assert queued.status == "queued"
    start_worker()
    # when
    done = client.verifications.wait(queued.id, timeout=60)
    # then
    assert done.status == "completed"
    assert done.id == queued.id


def test_the_async_client_verifies_many_answers_at_once(worker_server):
    async def run():
        async with AsyncTruthLens(
            api_key=worker_server.tenant.token, base_url=worker_server.url
        ) as client:
            answers = ["It was built in 1950.", "It was built from 1887 to 1889."]
            return await asyncio.gather(
                *(client.verify(context=list(EIFFEL.context), response=a) for a in answers)
            )

    wrong, right = asyncio.run(run())
    assert (wrong.detected, right.detected) == (True, False)
    assert right.passed
