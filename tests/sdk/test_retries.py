"""Retries against the live server: 429 with Retry-After, a lost answer, a spent quota.

The requests are real; an httpx event hook only records what went over the wire, and one
test's transport drops the first answer after the server has taken the job (as a network
failure would).
"""

from __future__ import annotations

import time

import httpx
import pytest
from truthlens import RateLimitError, TruthLens

from tenants.models import Plan
from verification.models import VerificationJob

pytestmark = pytest.mark.django_db(transaction=True)
BODY = {"context": ["The tower is 330 metres tall."], "response": "It is 330 metres tall."}


def _on_plan(tenant, **limits) -> None:
    tenant.plan = Plan.objects.create(name="tight", **limits)
    tenant.save(update_fields=["plan"])


class Wire:
    """What the client sent and got: (method, Idempotency-Key, status) per exchange."""

    def __init__(self):
        self.exchanges: list[tuple[str, str | None, int]] = []

    def hook(self, response: httpx.Response) -> None:
        request = response.request
        self.exchanges.append(
            (request.method, request.headers.get("Idempotency-Key"), response.status_code)
        )


def test_a_429_is_retried_after_retry_after_with_the_same_idempotency_key(server):
    # given a plan that allows one request a second
    _on_plan(server.tenant.tenant, rate_limit="1/s")
    wire = Wire()
    http = httpx.Client(event_hooks={"response": [wire.hook]}, timeout=30)
    client = TruthLens(server.tenant.token, server.url, max_retries=5, http_client=http)
    # when three verifications are sent back to back
    ids = [client.verifications.create(**BODY).id for _ in range(3)]
    # then all three were accepted once, after at least one 429
    assert len(set(ids)) == 3
    assert VerificationJob.objects.count() == 3
    refused = [key for _, key, status in wire.exchanges if status == 429]
    assert refused, wire.exchanges
    accepted = [key for _, key, status in wire.exchanges if status == 202]
    assert len(set(accepted)) == 3
    # each refused try was retried under its own key, which then got through
    assert set(refused) <= set(accepted)


class DropFirstAnswer(httpx.HTTPTransport):
    """Sends every request for real; loses the answer to the first POST."""

    def __init__(self):
        super().__init__()
        self.dropped = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if request.method == "POST" and not self.dropped:
            self.dropped += 1
            response.read()
            response.close()
            raise httpx.ReadError("connection reset after the request was sent")
        return response


def test_a_lost_answer_is_retried_without_creating_a_second_job(server):
    # given a network that loses the server's first answer
    wire = Wire()
    transport = DropFirstAnswer()
    http = httpx.Client(transport=transport, event_hooks={"response": [wire.hook]})
    client = TruthLens(server.tenant.token, server.url, http_client=http)
    # when
    job = client.verifications.create(**BODY)
    # then the server saw two POSTs with one key, and billed one job
    assert transport.dropped == 1
    assert VerificationJob.objects.count() == 1
    assert VerificationJob.objects.get().public_id == job.id
    [(method, key, status)] = wire.exchanges  # the dropped answer never reached the hook
    assert (method, status) == ("POST", 202)
    assert VerificationJob.objects.get().idempotency_key == key


def test_a_spent_monthly_quota_is_raised_at_once(server):
    _on_plan(server.tenant.tenant, monthly_quota=1)
    client = TruthLens(server.tenant.token, server.url, max_retries=3)
    client.verifications.create(**BODY)
    started = time.monotonic()
    with pytest.raises(RateLimitError) as error:
        client.verifications.create(**BODY)
    assert time.monotonic() - started < 5  # no waiting for next month
    assert error.value.slug == "quota-exceeded"
    assert error.value.retry_after > 3600
    assert VerificationJob.objects.count() == 1
