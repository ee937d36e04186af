"""Sentence checks of a streamed gateway answer: sent to the interactive detect lane,
answered through Redis.

The web process never runs a detector. A stream's completed sentences go, as one
task per group, to the `detect_interactive` queue (the detect workers read it
before any batch work); the worker stores the annotations under a short-lived key
and wakes the stream through the wait channel (`wait.job_finished`). The stream
reads the key without blocking while tokens flow, and waits on the channel only
after the upstream's last token.
"""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

from celery import current_app
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import RedisError

from .enqueue import DETECT
from .wait import _client, job_finished, wait_for

log = logging.getLogger(__name__)

#: the detect workers' task for a group of sentences (`workers/tasks/sentences.py`)
SENTENCE_TASK = "truthlens.check_sentences"
SENTENCE_QUEUE = DETECT.interactive_queue
#: how long a result waits to be read
RESULT_TTL_S = 120


def _key(check_id: str) -> str:
    return f"truthlens:sentences:{check_id}"


def submit(payload: dict[str, Any], expires_s: float) -> str | None:
    """Publish one sentence check; its id, or None when the broker is unavailable
    (the stream goes on without those annotations; the verdict job is the authority)."""
    check_id = "sc-" + uuid.uuid4().hex
    try:
        current_app.send_task(
            SENTENCE_TASK,
            args=[check_id, payload],
            queue=SENTENCE_QUEUE,
            retry=False,
            expires=max(1.0, expires_s),
        )
    except (KombuOperationalError, RedisError, OSError) as exc:
        log.warning("broker unavailable, sentence check dropped: %s", exc)
        return None
    return check_id


def store(check_id: str, annotations: list[dict[str, Any]]) -> None:
    """The worker's side: keep the result, then wake the stream that waits on it."""
    try:
        _client().set(_key(check_id), json.dumps(annotations), ex=RESULT_TTL_S)
    except RedisError as exc:
        log.warning("could not store sentence check %s: %s", check_id, exc)
        return
    job_finished(check_id)


def fetch(check_ids: list[str]) -> list[list[dict[str, Any]] | None]:
    """The results stored so far (None for each not yet there), without blocking."""
    if not check_ids:
        return []
    try:
        raw = _client().mget([_key(c) for c in check_ids])
    except RedisError:
        return [None] * len(check_ids)
    return [None if r is None else json.loads(r) for r in raw]


def wait(check_id: str, timeout_s: float) -> list[dict[str, Any]] | None:
    """Block up to `timeout_s` for one result (woken through the wait channel)."""
    found: list[list[dict[str, Any]] | None] = [None]

    def done() -> bool:
        found[0] = fetch([check_id])[0]
        return found[0] is not None

    wait_for(check_id, max(0.0, timeout_s), done)
    return found[0]
