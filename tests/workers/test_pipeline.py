"""One verification along the real path: API → Postgres → Redis → worker → Postgres → webhook."""

from __future__ import annotations

import json
import socket

import httpx
import pytest

from tests.conftest import client_for
from tests.fixtures.workers import wait_until
from verification.models import UsageRecord, VerificationJob, WebhookAttempt, WebhookDelivery
from verification.webhooks import signing

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _job(public_id: str) -> VerificationJob:
    return VerificationJob.objects.get(pk=VerificationJob.parse_public_id(public_id))


def test_a_job_goes_from_queued_to_completed_with_spans(start_worker, tenant_a, eiffel, tmp_path):
    # given a worker that exports its metrics
    port = _free_port()
    (tmp_path / "prom").mkdir()
    worker = start_worker(
        PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "prom"), TRUTHLENS_WORKER_METRICS_PORT=str(port)
    )
    client = client_for(tenant_a.token)
    # when
    created = client.post(
        "/v1/verifications", eiffel.request(), format="json", HTTP_X_REQUEST_ID="req-e2e-1"
    )
    # then
    assert created.status_code in (200, 202)
    job_id = created.json()["id"]
    assert wait_until(lambda: _job(job_id).status == "completed", timeout=60)
    response = client.get(f"/v1/verifications/{job_id}")
    body = response.json()
    assert body["verification_status"] == "verified"
    assert body["detected"] is True
    assert body["score"] >= body["threshold"]
    assert any(s["text"] == "1950" or "1950" in s["text"] for s in body["spans"])
    assert body["warning"]
    assert response["X-TruthLens-Detected"] == "true"
    assert float(response["X-TruthLens-Score"]) == pytest.approx(body["score"], abs=1e-4)
    assert set(body["latency_ms"]) == {"queue", "detect", "mitigate", "total"}
    assert UsageRecord.objects.filter(job__pk=_job(job_id).pk).count() == 1
    # and the worker's metrics and JSON logs carry what operators need
    scraped = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
    assert (
        'truthlens_detections_total{decision="default",detected="true",mode="lightweight"}'
        in scraped
    )
    assert 'truthlens_worker_task_seconds_count{task="truthlens.detect"}' in scraped
    assert 'truthlens_worker_tasks_total{state="succeeded",task="truthlens.detect"}' in scraped
    assert 'truthlens_queue_depth{queue="detect"}' in scraped
    assert "truthlens_detector_batch_size_count" in scraped

    def finished_lines() -> list[dict]:
        lines = [json.loads(ln) for ln in worker.log().splitlines() if ln.startswith("{")]
        return [rec for rec in lines if rec.get("message") == "detection finished"]

    assert wait_until(lambda: bool(finished_lines()), timeout=10)
    finished = finished_lines()
    assert finished
    assert finished[0]["job_id"] == job_id
    assert finished[0]["request_id"] == "req-e2e-1"
    assert finished[0]["tenant_id"] == str(tenant_a.tenant.pk)
    assert eiffel.response not in worker.log()  # answer texts stay out of logs


def test_wait_blocks_until_the_job_is_done(start_worker, tenant_a, eiffel):
    start_worker()
    response = client_for(tenant_a.token).post(
        "/v1/verifications", eiffel.request(wait=30), format="json"
    )
    assert response.status_code == 200
    assert response.json()["status"] == "completed"


def test_a_worker_killed_mid_task_does_not_lose_the_job(start_worker, tenant_a, eiffel):
    # given a worker that stalls in the first attempt, with a short lease
    env = {"TRUTHLENS_FAULT_DETECT_SLEEP_SECONDS": "60", "TRUTHLENS_JOB_LEASE_SECONDS": "3"}
    first = start_worker(**env)
    job_id = (
        client_for(tenant_a.token)
        .post("/v1/verifications", eiffel.request(), format="json")
        .json()["id"]
    )
    assert wait_until(lambda: _job(job_id).status == "running", timeout=30)
    # when the worker dies without acking and a new one starts
    first.kill()
    start_worker(**env)
    # then the sweeper re-enqueues the job and it completes exactly once
    assert wait_until(lambda: _job(job_id).status == "completed", timeout=60), _job(job_id).status
    job = _job(job_id)
    assert job.attempts >= 2
    assert UsageRecord.objects.filter(job=job).count() == 1


def test_a_webhook_is_signed_and_retried_after_a_500(start_worker, tenant_a, eiffel, receiver):
    # given a receiver that fails once
    receiver.responses = [500]
    tenant, token = tenant_a
    start_worker()
    # when
    job_id = (
        client_for(token)
        .post("/v1/verifications", eiffel.request(callback_url=receiver.url), format="json")
        .json()["id"]
    )
    # then it is delivered on the second attempt, with a valid signature
    assert receiver.wait_for(2, timeout=60), [r.path for r in receiver.received]
    last = receiver.received[-1]
    assert signing.verify(tenant.webhook_secret, last.body, last.headers["X-TruthLens-Signature"])
    event = json.loads(last.body)
    assert event["type"] == "verification.completed"
    assert event["data"]["id"] == job_id
    assert event["id"].startswith("evt_")
    delivery = WebhookDelivery.objects.get()
    assert wait_until(lambda: WebhookDelivery.objects.get().status == "succeeded", timeout=10)
    codes = list(
        WebhookAttempt.objects.filter(delivery=delivery).values_list("status_code", flat=True)
    )
    assert codes == [500, 200]
