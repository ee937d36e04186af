"""A worker killed mid-mitigation, and a webhook receiver that is down for a while."""

from __future__ import annotations

import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tenants.models import Policy
from tests.conftest import client_for
from tests.fixtures.fake_llm import Reply
from tests.fixtures.llm import configure_llm
from tests.fixtures.workers import wait_until
from verification.models import (
    LLMCallRecord,
    UsageRecord,
    VerificationJob,
    WebhookAttempt,
    WebhookDelivery,
)

from .services import free_port

pytestmark = [pytest.mark.faults, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

CORRECTED = "The Eiffel Tower was built from 1887 to 1889 and is 330 metres tall."


def _job(public_id: str) -> VerificationJob:
    return VerificationJob.objects.get(pk=VerificationJob.parse_public_id(public_id))


def test_a_worker_killed_mid_mitigation_completes_the_job_once(
    start_worker, tenant_a, eiffel, fake_llm
):
    # given a standard-mode tenant whose LLM answers the first call very slowly
    tenant, token = tenant_a
    Policy.objects.create(tenant=tenant, document={"default_mode": "standard"})
    configure_llm(tenant, fake_llm, models=("primary",))
    first_call = threading.Event()

    def responder(body: dict) -> Reply:
        if not first_call.is_set():
            first_call.set()
            return Reply(content=CORRECTED, delay=120)  # the kill lands during this call
        return Reply(content=CORRECTED)

    fake_llm.responder = responder
    env = {"TRUTHLENS_JOB_LEASE_SECONDS": "3"}
    first = start_worker(**env)
    job_id = (
        client_for(token).post("/v1/verifications", eiffel.request(), format="json").json()["id"]
    )
    # when the worker dies while the LLM call is in flight
    assert wait_until(first_call.is_set, timeout=90), first.log()[-3000:]
    assert _job(job_id).stage == "mitigating"
    first.kill()
    start_worker(**env)
    # then the sweeper hands the job to the new worker and it completes exactly once
    assert wait_until(lambda: _job(job_id).status == "completed", timeout=120), (
        _job(job_id).status,
        _job(job_id).stage,
    )
    job = _job(job_id)
    assert job.final_response == CORRECTED
    assert job.attempts >= 3  # detect, killed mitigation, mitigation again
    usage = UsageRecord.objects.get(job=job)
    calls = LLMCallRecord.objects.filter(job=job).count()
    # the killed attempt's call never finished, so it is billed nowhere
    assert usage.llm_calls == calls
    assert calls == len(fake_llm.requests) - 1


class _Receiver:
    """A webhook receiver on a fixed port that can be down and come back."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self.events: list[str] = []
        self.server: ThreadingHTTPServer | None = None

    def start(self) -> None:
        events = self.events

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # http.server API
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                events.append(json.loads(body)["id"])
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        ThreadingHTTPServer.allow_reuse_address = True
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


@pytest.fixture
def flaky_receiver():
    receiver = _Receiver()
    yield receiver
    receiver.stop()


def test_webhooks_reach_a_receiver_that_was_down_exactly_once(
    start_worker, tenant_a, eiffel, flaky_receiver
):
    # given a receiver that is down when the jobs finish
    start_worker()
    client = client_for(tenant_a.token)
    ids = [
        client.post(
            "/v1/verifications", eiffel.request(callback_url=flaky_receiver.url), format="json"
        ).json()["id"]
        for _ in range(3)
    ]

    def retried_while_down() -> bool:
        # Count logged attempts, not `attempts`: the counter moves at claim time,
        # before the attempt's outcome is written.
        failed = Counter(
            WebhookAttempt.objects.filter(status_code__isnull=True).values_list(
                "delivery_id", flat=True
            )
        )
        return len(failed) == 3 and all(n >= 2 for n in failed.values())

    assert wait_until(retried_while_down, timeout=120, interval=0.5)
    assert not WebhookDelivery.objects.filter(status="succeeded").exists()
    # when it comes back
    flaky_receiver.start()
    # then every event is delivered, each exactly once
    assert wait_until(
        lambda: WebhookDelivery.objects.filter(status="succeeded").count() == 3, timeout=90
    ), list(WebhookDelivery.objects.values_list("status", "attempts"))
    events = set(WebhookDelivery.objects.values_list("event_id", flat=True))
    assert wait_until(lambda: len(flaky_receiver.events) >= 3, timeout=10)
    assert Counter(flaky_receiver.events) == Counter(events)  # no event twice
    per_job = Counter(WebhookDelivery.objects.values_list("job_id", flat=True))
    assert sorted(per_job) == sorted(VerificationJob.parse_public_id(i) for i in ids)
    assert set(per_job.values()) == {1}
    for delivery in WebhookDelivery.objects.all():
        assert WebhookAttempt.objects.filter(delivery=delivery, status_code=200).count() == 1
    assert UsageRecord.objects.count() == 3
