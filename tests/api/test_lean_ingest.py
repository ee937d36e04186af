"""The lean ingest path of `POST /v1/verifications` (issue 26, item 4): a bounded number
of SQL statements, the quota as an exact counter row, the authentication cache and its
invalidation, a 202 body that is the documented representation."""

from __future__ import annotations

import threading

import pytest
import redis
from django.conf import settings as django_settings
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from tenants import auth_cache
from tenants.models import ApiKey, Plan
from tests.conftest import client_for
from verification.models import MonthlyJobCount, OutboxMessage, VerificationJob
from verification.queue import relay
from verification.serializers import VerificationSerializer, verification_headers

#: an accepted POST with the key's entry cached: the job, its outbox message and the quota
#: counter in one statement; the outbox message marked published; the request log row
MAX_STATEMENTS = 3


@pytest.fixture(autouse=True)
def _empty_auth_cache():
    auth_cache.invalidate()
    yield
    auth_cache.invalidate()


def _plan(tenant, **fields) -> Plan:
    plan = Plan.objects.create(name=f"plan-{tenant.slug}", **fields)
    tenant.plan = plan
    tenant.save()
    return plan


def _post(client: APIClient, eiffel, **headers):
    return client.post("/v1/verifications", eiffel.request(), format="json", **headers)


@pytest.mark.django_db(transaction=True)  # autocommit, as in production (no test transaction)
def test_an_accepted_post_sends_at_most_three_statements(tenant_a, client_a, eiffel):
    _plan(tenant_a.tenant, monthly_quota=1000)
    assert _post(client_a, eiffel).status_code == 202  # fills the auth cache
    with CaptureQueriesContext(connection) as queries:
        response = _post(client_a, eiffel)
    assert response.status_code == 202
    statements = [q["sql"] for q in queries.captured_queries]
    assert len(statements) <= MAX_STATEMENTS, statements
    # the job, its outbox message and the counter are written by one statement
    creating = [s for s in statements if "verification_verificationjob" in s]
    assert len(creating) == 1
    assert "verification_outboxmessage" in creating[0]
    assert "verification_monthlyjobcount" in creating[0]
    assert not any(s in ("BEGIN", "COMMIT") or s.startswith("SAVEPOINT") for s in statements)
    job = VerificationJob.objects.get(pk=VerificationJob.parse_public_id(response.json()["id"]))
    message = OutboxMessage.objects.get(job=job)
    assert message.published_at is not None  # published after commit, without a read back


@pytest.mark.django_db(transaction=True)
def test_the_202_body_is_the_documented_representation(tenant_a, client_a, eiffel):
    response = client_a.post(
        "/v1/verifications",
        eiffel.request(metadata={"ticket": 7}),
        format="json",
    )
    assert response.status_code == 202
    job = (
        VerificationJob.objects.prefetch_related("spans")
        .select_related("usage")
        .get(pk=VerificationJob.parse_public_id(response.json()["id"]))
    )
    assert response.json() == dict(VerificationSerializer(job).data)
    for name, value in verification_headers(job).items():
        assert response[name] == value
    assert response["Location"] == f"/v1/verifications/{job.public_id}"


@pytest.mark.django_db(transaction=True)
def test_the_quota_counter_is_exact_under_concurrent_posts(tenant_a, eiffel):
    # given a plan of 10 verifications a month and 8 clients sending 4 each at once
    _plan(tenant_a.tenant, monthly_quota=10)
    codes: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(8)

    def send() -> None:
        client = client_for(tenant_a.token)
        try:
            start.wait()
            for _ in range(4):
                code = _post(client, eiffel).status_code
                with lock:
                    codes.append(code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=send) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # then exactly 10 are accepted, the rest refused, and the counter says 10
    assert sorted(set(codes)) == [202, 429]
    assert codes.count(202) == 10
    assert codes.count(429) == 22
    assert VerificationJob.objects.filter(tenant=tenant_a.tenant).count() == 10
    assert OutboxMessage.objects.filter(job__tenant=tenant_a.tenant).count() == 10
    assert MonthlyJobCount.objects.get(tenant=tenant_a.tenant).jobs == 10


@pytest.mark.django_db(transaction=True)
def test_a_refused_post_writes_nothing(tenant_a, client_a, eiffel):
    _plan(tenant_a.tenant, monthly_quota=1)
    assert _post(client_a, eiffel).status_code == 202
    refused = _post(client_a, eiffel)
    assert refused.status_code == 429
    assert refused.json()["type"].endswith("/quota-exceeded")
    assert VerificationJob.objects.filter(tenant=tenant_a.tenant).count() == 1
    assert OutboxMessage.objects.count() == 1
    assert MonthlyJobCount.objects.get(tenant=tenant_a.tenant).jobs == 1


@pytest.mark.django_db(transaction=True)
def test_an_idempotent_replay_returns_the_same_job_and_counts_once(tenant_a, client_a, eiffel):
    _plan(tenant_a.tenant, monthly_quota=100)
    first = _post(client_a, eiffel, HTTP_IDEMPOTENCY_KEY="order-1")
    again = _post(client_a, eiffel, HTTP_IDEMPOTENCY_KEY="order-1")
    assert (first.status_code, again.status_code) == (202, 202)
    assert again.json()["id"] == first.json()["id"]
    assert again["Idempotent-Replayed"] == "true"
    assert VerificationJob.objects.count() == 1
    assert OutboxMessage.objects.count() == 1
    assert MonthlyJobCount.objects.get(tenant=tenant_a.tenant).jobs == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_posts_with_one_idempotency_key_make_one_job_billed_once(tenant_a, eiffel):
    _plan(tenant_a.tenant, monthly_quota=100)
    ids: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(6)

    def send() -> None:
        client = client_for(tenant_a.token)
        try:
            start.wait()
            response = _post(client, eiffel, HTTP_IDEMPOTENCY_KEY="same")
            assert response.status_code == 202
            with lock:
                ids.append(response.json()["id"])
        finally:
            connections.close_all()

    threads = [threading.Thread(target=send) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(ids) == 6
    assert len(set(ids)) == 1
    assert VerificationJob.objects.count() == 1
    assert OutboxMessage.objects.count() == 1
    assert MonthlyJobCount.objects.get(tenant=tenant_a.tenant).jobs == 1


@pytest.mark.django_db
def test_a_revoked_key_is_refused_on_the_next_request(tenant_a, client_a, eiffel):
    assert _post(client_a, eiffel).status_code == 202  # the key is now cached
    ApiKey.objects.get(tenant=tenant_a.tenant).revoke()
    refused = _post(client_a, eiffel)
    assert refused.status_code == 401
    assert client_a.get("/v1/verifications").status_code == 401


@pytest.mark.django_db
def test_a_deactivated_tenant_is_refused_on_the_next_request(tenant_a, client_a, eiffel):
    assert _post(client_a, eiffel).status_code == 202
    tenant = tenant_a.tenant
    tenant.is_active = False
    tenant.save()
    assert _post(client_a, eiffel).status_code == 401


@pytest.mark.django_db
def test_a_plan_change_applies_on_the_next_request(tenant_a, client_a, eiffel):
    plan = _plan(tenant_a.tenant, monthly_quota=0)
    assert _post(client_a, eiffel).status_code == 202
    assert _post(client_a, eiffel).status_code == 202
    plan.monthly_quota = 2
    plan.save()
    assert _post(client_a, eiffel).status_code == 429


@pytest.mark.django_db
def test_a_policy_change_applies_on_the_next_request(tenant_a, client_a, eiffel):
    from tenants.models import Policy

    assert _post(client_a, eiffel).status_code == 202
    Policy.objects.create(tenant=tenant_a.tenant, document={"allowed_modes": ["lightweight"]})
    refused = client_a.post("/v1/verifications", eiffel.request(mode="standard"), format="json")
    assert refused.status_code == 400
    assert [e["field"] for e in refused.json()["errors"]] == ["mode"]


@pytest.mark.django_db
def test_a_revocation_made_elsewhere_takes_effect_within_the_ttl(
    tenant_a, client_a, eiffel, settings, monkeypatch
):
    # another process revokes the key: this one gets no signal, only the TTL expires
    settings.TRUTHLENS = {**settings.TRUTHLENS, "AUTH_CACHE_SECONDS": 5}
    now = [1000.0]
    monkeypatch.setattr(auth_cache.time, "monotonic", lambda: now[0])
    assert _post(client_a, eiffel).status_code == 202
    ApiKey.objects.filter(tenant=tenant_a.tenant).update(revoked_at="2026-01-01T00:00:00Z")
    now[0] += 4.9
    assert _post(client_a, eiffel).status_code == 202  # still cached here (documented)
    now[0] += 0.2
    assert _post(client_a, eiffel).status_code == 401


@pytest.mark.django_db
def test_a_wrong_secret_for_a_cached_prefix_is_refused(tenant_a, client_a, eiffel):
    assert _post(client_a, eiffel).status_code == 202
    prefix = tenant_a.token.split("_")[1]
    forged = client_for(f"tl_{prefix}_{'x' * 43}")
    assert _post(forged, eiffel).status_code == 401


@pytest.mark.django_db
def test_no_cache_reads_the_key_on_every_request(tenant_a, client_a, eiffel, settings):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "AUTH_CACHE_SECONDS": 0}
    assert _post(client_a, eiffel).status_code == 202
    ApiKey.objects.filter(tenant=tenant_a.tenant).update(revoked_at="2026-01-01T00:00:00Z")
    assert _post(client_a, eiffel).status_code == 401


@pytest.mark.django_db(transaction=True)
def test_the_relay_thread_publishes_off_the_request_path(tenant_a, client_a, eiffel, settings):
    # given the production default: the request hands its message to the relay thread
    settings.TRUTHLENS = {**settings.TRUTHLENS, "OUTBOX_PUBLISH": "relay"}
    broker = redis.Redis.from_url(django_settings.REDIS_URL)
    assert _post(client_a, eiffel).status_code == 202  # fills the auth cache
    with CaptureQueriesContext(connection) as queries:
        accepted = [_post(client_a, eiffel) for _ in range(5)]
    relay.stop()  # publishes what is queued, then ends the thread
    # then each request sent two statements (the job, the request log), none to publish
    assert len(queries) == 2 * 5, [q["sql"] for q in queries.captured_queries]
    assert {r.status_code for r in accepted} == {202}
    # and every message reached the broker once and is marked published
    assert OutboxMessage.objects.filter(published_at__isnull=True).count() == 0
    assert OutboxMessage.objects.count() == 6
    assert broker.llen("detect") == 6


@pytest.mark.django_db(transaction=True)
def test_what_the_relay_could_not_send_is_left_for_the_sweeper(
    tenant_a, client_a, eiffel, settings, monkeypatch
):
    from kombu.exceptions import OperationalError

    from verification.actions.sweep import relay_outbox

    settings.TRUTHLENS = {
        **settings.TRUTHLENS,
        "OUTBOX_PUBLISH": "relay",
        "OUTBOX_RELAY_AFTER_SECONDS": 0,
    }

    def broker_down(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(relay.current_app, "send_task", broker_down)
    assert _post(client_a, eiffel).status_code == 202  # accepted: the job is durable
    relay.stop()
    assert OutboxMessage.objects.get().published_at is None
    monkeypatch.undo()
    assert relay_outbox() == 1
    assert OutboxMessage.objects.get().published_at is not None


@pytest.mark.django_db(transaction=True)
def test_the_request_log_is_written_off_the_request_path(tenant_a, client_a, eiffel, settings):
    from api.request_log import _writer
    from tenants.request_log import RequestLogEntry

    settings.TRUTHLENS = {
        **settings.TRUTHLENS,
        "REQUEST_LOG_WRITE": "background",
        "OUTBOX_PUBLISH": "relay",
    }
    assert _post(client_a, eiffel).status_code == 202  # fills the auth cache
    with CaptureQueriesContext(connection) as queries:
        codes = [_post(client_a, eiffel).status_code for _ in range(4)]
    _writer.stop()
    relay.stop()
    assert codes == [202] * 4
    # one statement per accepted POST: the job, its outbox message and the quota counter
    assert len(queries) == 4, [q["sql"] for q in queries.captured_queries]
    rows = RequestLogEntry.objects.filter(tenant=tenant_a.tenant)
    assert rows.count() == 5
    assert set(rows.values_list("status", flat=True)) == {202}
