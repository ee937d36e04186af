"""Postgres restarted under load: the API answers success or 503 + Retry-After, nothing is lost."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from tests.fixtures.workers import wait_until
from verification.models import VerificationJob

from .services import create_tenant, django_env
from .support import FAST_RECOVERY, Call, assert_clean_answer, post

pytestmark = [pytest.mark.faults, pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _final_counts(url: str, ids: list[str]) -> tuple[dict[str, str], dict[str, int]]:
    uuids = [str(VerificationJob.parse_public_id(i)) for i in ids]
    with psycopg.connect(url) as conn:
        statuses = dict(
            conn.execute(
                "SELECT id::text, status FROM verification_verificationjob WHERE id::text = ANY(%s)",
                [uuids],
            ).fetchall()
        )
        usage = dict(
            conn.execute(
                "SELECT job_id::text, count(*) FROM verification_usagerecord "
                "WHERE job_id::text = ANY(%s) GROUP BY job_id",
                [uuids],
            ).fetchall()
        )
    return statuses, usage


def test_a_postgres_restart_under_load_gives_clean_answers_and_loses_nothing(
    private_postgres, private_redis, start_api, start_worker, eiffel
):
    # given the API and a worker on a private Postgres, under a steady stream of requests
    pg, url = private_postgres
    env = {
        "DATABASE_URL": url,
        "REDIS_URL": private_redis.url,
        "CELERY_BROKER_URL": private_redis.url,
        **FAST_RECOVERY,
    }
    token = create_tenant(django_env(url, private_redis.url), "pg-restart")
    api = start_api(**env)
    start_worker(**env)
    calls: list[Call] = []
    stop = threading.Event()

    def load() -> None:
        while not stop.is_set():
            calls.append(post(api.base_url, token, eiffel.request(), timeout=30))
            time.sleep(0.05)

    threads = [threading.Thread(target=load) for _ in range(3)]
    for thread in threads:
        thread.start()
    try:
        assert wait_until(lambda: sum(c.status == 202 for c in calls) >= 5, timeout=60)
        # when Postgres stops (fast shutdown: connections are cut) and comes back
        pg.stop("fast")
        time.sleep(4)
        pg.start()
        during = len(calls)
        assert wait_until(lambda: sum(c.status == 202 for c in calls[during:]) >= 5, timeout=60), [
            c.status for c in calls[during:]
        ]
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
    # then every answer was a success or a clean 503, quickly
    for call in calls:
        assert_clean_answer(call)
        assert call.elapsed < 15, call
    assert any(c.status == 503 for c in calls), "the outage was not observed"
    assert "Traceback" not in api.log()
    # and every accepted job reaches a final state with exactly one usage record
    accepted = [c.body["id"] for c in calls if c.status in (200, 202)]

    def all_final() -> bool:
        statuses, _ = _final_counts(url, accepted)
        return len(statuses) == len(accepted) and all(s == "completed" for s in statuses.values())

    assert wait_until(all_final, timeout=150, interval=1), _final_counts(url, accepted)[0]
    _, usage = _final_counts(url, accepted)
    assert len(usage) == len(accepted)
    assert set(usage.values()) == {1}
