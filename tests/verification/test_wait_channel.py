"""Completion wake-ups for requests that wait: one Redis client per process, reused, and
a completion published through it reaches a waiter."""

from __future__ import annotations

import threading
import time

import redis

from verification.queue import wait


def test_completions_reuse_one_client_and_its_connection_pool(monkeypatch, settings):
    wait._clients.clear()
    made = []
    real = redis.Redis.from_url

    def counting(url, **kwargs):
        made.append(url)
        return real(url, **kwargs)

    monkeypatch.setattr(redis.Redis, "from_url", counting)
    for n in range(50):
        wait.job_finished(f"job-{n}")
    assert made == [settings.REDIS_URL]  # one client for fifty completions
    pool = wait._client().connection_pool
    assert len(pool._available_connections) + len(pool._in_use_connections) <= 1


def test_a_waiter_wakes_on_the_published_completion(settings):
    wait._clients.clear()
    done = threading.Event()

    def finish():
        time.sleep(0.3)
        done.set()
        wait.job_finished("job-wake")

    threading.Thread(target=finish).start()
    assert wait.wait_for("job-wake", 10, done.is_set) is True
    assert wait.wait_for("job-never", 0.2, lambda: False) is False
