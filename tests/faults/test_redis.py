"""Redis (broker, cache, notifications) restarted while jobs are queued and while the API accepts."""

from __future__ import annotations

import time

import pytest
import redis

from tests.fixtures.workers import wait_until
from verification.models import OutboxMessage, UsageRecord, VerificationJob

from .support import FAST_RECOVERY, assert_clean_answer, post

pytestmark = [pytest.mark.faults, pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _env(private_redis) -> dict[str, str]:
    return {"REDIS_URL": private_redis.url, "CELERY_BROKER_URL": private_redis.url, **FAST_RECOVERY}


def _all_final_exactly_once(ids: list[str], timeout: float = 120) -> None:
    pks = [VerificationJob.parse_public_id(i) for i in ids]

    def done() -> bool:
        return VerificationJob.objects.filter(pk__in=pks, status="completed").count() == len(pks)

    assert wait_until(done, timeout=timeout, interval=0.5), list(
        VerificationJob.objects.filter(pk__in=pks).values_list("status", "stage", "attempts")
    )
    for pk in pks:
        assert UsageRecord.objects.filter(job_id=pk).count() == 1


def test_jobs_queued_when_redis_restarts_are_not_lost(
    private_redis, start_api, start_worker, tenant_a, eiffel
):
    # given jobs accepted while no worker runs: their messages sit in Redis
    env = _env(private_redis)
    api = start_api(**env)
    calls = [post(api.base_url, tenant_a.token, eiffel.request()) for _ in range(6)]
    assert [c.status for c in calls] == [202] * 6
    ids = [c.body["id"] for c in calls]
    assert OutboxMessage.objects.filter(published_at__isnull=True).count() == 0
    assert redis.Redis.from_url(private_redis.url).llen("detect") == 6
    # when Redis restarts without persistence, the queue is gone
    private_redis.restart()
    assert redis.Redis.from_url(private_redis.url).llen("detect") == 0
    start_worker(**env)
    # then the sweeper re-enqueues the queued jobs and each completes exactly once
    _all_final_exactly_once(ids)


def test_the_api_accepts_while_redis_is_down_and_the_relay_catches_up(
    private_redis, start_api, start_worker, tenant_a, eiffel
):
    # given a running API and worker
    env = _env(private_redis)
    api = start_api(**env)
    start_worker(**env)
    warm = post(api.base_url, tenant_a.token, eiffel.request())
    _all_final_exactly_once([warm.body["id"]])  # the worker is up and consuming
    # when Redis goes away
    private_redis.stop()
    calls = [post(api.base_url, tenant_a.token, eiffel.request()) for _ in range(5)]
    # a request that waits is bounded by its own wait, not by Redis timeouts
    started = time.monotonic()
    waited = post(api.base_url, tenant_a.token, eiffel.request(wait=3))
    waited_for = time.monotonic() - started
    # then every request got a clean, fast answer and accepted jobs are durable
    for call in calls:
        assert_clean_answer(call)
        assert call.elapsed < 5, call  # was ~6 s each: kombu retried the broker connection
    assert_clean_answer(waited)
    assert waited.status == 202, waited_for
    assert waited_for < 3 + 4, waited_for
    accepted = [c.body["id"] for c in [*calls, waited] if c.status in (200, 202)]
    assert len(accepted) >= 5  # the API keeps accepting; the outbox holds the messages
    assert OutboxMessage.objects.filter(published_at__isnull=True).count() >= len(accepted)
    # and once Redis is back the relay publishes them and each completes exactly once
    private_redis.start()
    _all_final_exactly_once(accepted + [warm.body["id"]])
    assert wait_until(
        lambda: OutboxMessage.objects.filter(published_at__isnull=True).count() == 0, timeout=30
    )
