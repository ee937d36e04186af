"""Wake requests that wait (`"wait": N`) when their job finishes, via Redis pub/sub."""

from __future__ import annotations

import contextlib
import logging
import threading
import time

import redis
from django.conf import settings

log = logging.getLogger(__name__)


_clients: dict[str, redis.Redis] = {}
_lock = threading.Lock()


def _client() -> redis.Redis:
    """One client, and so one connection pool, per Redis URL and process: a worker that
    finishes thousands of jobs a second must not open a connection for each (redis-py's
    pool starts afresh in a forked child)."""
    url = settings.REDIS_URL
    client = _clients.get(url)
    if client is None:
        with _lock:
            client = _clients.get(url)
            if client is None:
                client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=5)
                _clients[url] = client
    return client


def channel(job_id: str) -> str:
    return f"truthlens:job-done:{job_id}"


def job_finished(job_id: str) -> None:
    try:
        _client().publish(channel(job_id), b"1")
    except redis.RedisError as exc:  # waiters fall back to polling
        log.warning("could not publish completion of %s: %s", job_id, exc)


def wait_for(job_id: str, timeout_s: float, is_done) -> bool:
    """Block until `is_done()` is true or `timeout_s` passes; returns the last `is_done()`.

    Subscribes before the first check so a completion between the check and
    the subscription is not missed; polls once a second as a fallback when
    Redis is unavailable.
    """
    deadline = time.monotonic() + timeout_s
    pubsub = None
    try:
        pubsub = _client().pubsub(ignore_subscribe_messages=True)
        pubsub.subscribe(channel(job_id))
    except redis.RedisError:
        pubsub = None
    try:
        while True:
            if is_done():
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if pubsub is not None:
                try:
                    pubsub.get_message(timeout=min(remaining, 1.0))
                    continue
                except redis.RedisError:
                    pubsub = None
            time.sleep(min(remaining, 1.0))
    finally:
        if pubsub is not None:
            with contextlib.suppress(redis.RedisError):
                pubsub.close()
