"""Byte-for-byte snapshots of what clients read about a job: `GET /v1/verifications/{id}`, an
item of `GET /v1/verifications`, and the `verification.completed` webhook's body.

The jobs are fixed (ids, times, every field), so any change to how the job row is stored that
leaks into a payload fails here. The expected bytes live in `tests/api/snapshots/`; they were
written from the code before the job row was reorganised (issue 27 item 4) and must not be
regenerated to make a change pass.
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from pathlib import Path

import pytest
from django.utils import timezone

from verification.models import DetectedSpan, UsageRecord, VerificationJob, WebhookDelivery
from verification.webhooks import delivery as transport
from verification.webhooks import dispatch

pytestmark = pytest.mark.django_db

SNAPSHOTS = Path(__file__).parent / "snapshots"
COMPLETED_ID = uuid.UUID("5b0c1f7e-9a2d-4c3b-8e6f-0123456789ab")
QUEUED_ID = uuid.UUID("7d1e2f30-4152-4637-8899-aabbccddeeff")
CREATED = dt.datetime(2026, 11, 3, 9, 15, 30, 123456, tzinfo=dt.UTC)
COMPLETED = CREATED + dt.timedelta(seconds=2, microseconds=345000)


def _completed_job(tenant) -> VerificationJob:
    job = VerificationJob.objects.create(
        id=COMPLETED_ID,
        tenant=tenant,
        status="completed",
        context=["The Eiffel Tower is 330 metres tall. It was finished in 1889."],
        query="How tall is the Eiffel Tower?",
        response="The Eiffel Tower is 450 metres tall.",
        model="gpt-4o-mini",
        requested_mode="auto",
        callback_url="http://127.0.0.1:9/cb",
        metadata={"customer": "acme", "ticket": 42},
        query_type="factual",
        query_type_confidence=0.875,
        decision="default",
        mode="standard",
        mode_source="bandit",
        enabled=True,
        verification_status="verified",
        reason="",
        score=0.8125,
        model_score=0.75,
        final_score=0.125,
        threshold=0.5,
        detected=True,
        verdict="hallucinated",
        risk_level="high",
        score_calibration={
            "calibrated": True,
            "method": "isotonic",
            "dataset": "support",
            "dataset_version": 3,
        },
        final_response="The Eiffel Tower is 330 metres tall.",
        iterations=1,
        warning="",
        diagnostics=["judge model unavailable: fell back to the refiner"],
        coverage={"claims": 1, "supported": 0, "contradicted": 1},
        citations=None,
        cascade={"decisions": [], "cost_usd": 0.0, "warnings": []},
        grounding=None,
        detector="embedded",
        detector_tokens=37,
        created_at=CREATED,
        started_at=CREATED + dt.timedelta(milliseconds=40),
        completed_at=COMPLETED,
        attempts=1,
        stage="done",
        latency_ms={"queue": 40, "detect": 120, "mitigate": 2100, "total": 2345},
    )
    DetectedSpan.objects.create(
        job=job,
        start=20,
        end=35,
        text="450 metres tall",
        confidence=0.9375,
        label="hallucinated",
        reason="The context says 330 metres.",
        evidence="330 metres tall",
        evidence_passage=0,
        evidence_start=20,
        evidence_end=35,
    )
    DetectedSpan.objects.create(
        job=job, iteration=1, start=0, end=3, text="The", confidence=0.1, label="ok"
    )
    UsageRecord.objects.create(
        job=job,
        tenant=tenant,
        mode="standard",
        detector_tokens=37,
        llm_calls=2,
        prompt_tokens=310,
        completion_tokens=45,
        provider_cost_usd=Decimal("0.00123400"),
        tenant_provider_cost_usd=Decimal("0.00050000"),
        price_usd=Decimal("0.01000000"),
        created_at=COMPLETED,
    )
    return job


def _queued_job(tenant) -> VerificationJob:
    return VerificationJob.objects.create(
        id=QUEUED_ID,
        tenant=tenant,
        context=["c"],
        response="r",
        requested_mode="lightweight",
        created_at=CREATED - dt.timedelta(minutes=1),
    )


def _truthlens_headers(response) -> dict[str, str]:
    return {k: v for k, v in response.headers.items() if k.lower().startswith("x-truthlens-")}


def _expected(name: str) -> bytes:
    return (SNAPSHOTS / name).read_bytes().rstrip(b"\n")


@pytest.fixture
def jobs(tenant_a, monkeypatch):
    # The list asks the last two months first; "now" is the jobs' month.
    monkeypatch.setattr(timezone, "now", lambda: CREATED + dt.timedelta(days=1))
    return _completed_job(tenant_a.tenant), _queued_job(tenant_a.tenant)


def test_the_detail_of_a_completed_job_is_unchanged(client_a, jobs):
    response = client_a.get(f"/v1/verifications/{jobs[0].public_id}")
    assert response.status_code == 200
    assert response.content == _expected("detail_completed.json")
    assert _truthlens_headers(response) == {
        "X-TruthLens-Enabled": "true",
        "X-TruthLens-Mode": "standard",
        "X-TruthLens-Score": "0.8125",
        "X-TruthLens-Detected": "true",
        "X-TruthLens-Iterations": "1",
        "X-TruthLens-Latency-Ms": "2345",
        "X-TruthLens-Status": "completed",
    }


def test_the_detail_of_a_queued_job_is_unchanged(client_a, jobs):
    response = client_a.get(f"/v1/verifications/{jobs[1].public_id}")
    assert response.status_code == 200
    assert response.content == _expected("detail_queued.json")
    assert _truthlens_headers(response) == {
        "X-TruthLens-Enabled": "true",
        "X-TruthLens-Mode": "lightweight",
        "X-TruthLens-Score": "",
        "X-TruthLens-Detected": "unknown",
        "X-TruthLens-Iterations": "0",
        "X-TruthLens-Latency-Ms": "",
        "X-TruthLens-Status": "queued",
    }


def test_the_list_items_are_unchanged(client_a, jobs):
    response = client_a.get("/v1/verifications")
    assert response.status_code == 200
    body = response.json()
    assert [item["id"] for item in body["results"]] == [j.public_id for j in jobs]
    assert response.content == _expected("list.json")


def test_the_completed_webhook_body_is_unchanged(tenant_a, jobs):
    job = VerificationJob.objects.select_related("tenant").get(pk=COMPLETED_ID)
    [delivery_id] = dispatch.create_deliveries(job, "verification.completed")
    payload = WebhookDelivery.objects.get(pk=delivery_id).payload
    assert payload["type"] == "verification.completed"
    # the event's own id and time are new for every event
    payload["id"], payload["created"] = "evt_fixed", 1764000000
    assert transport.encode(payload) == _expected("webhook_completed.json")
