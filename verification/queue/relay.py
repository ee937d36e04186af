"""The web process's outbox relay: publishes the messages its requests wrote, off the
request path, in batches.

`POST /v1/verifications` writes the job and its outbox message in one statement and
hands the message to this relay (`submit`, after commit); the request answers at once.
A daemon thread per process sends the queued messages to the broker as soon as they
arrive (no polling delay: it blocks on an in-memory queue) and marks a whole batch
published with one UPDATE. Jobs start as promptly as with the inline publish.

Nothing is lost if this thread never gets to a message (the process dies, the broker
is down): the message stays unpublished in Postgres and the sweeper's relay
(`actions.sweep.relay_outbox`, every `TRUTHLENS_SWEEP_INTERVAL_SECONDS`) publishes it
after `TRUTHLENS_OUTBOX_RELAY_AFTER_SECONDS`. A message published twice (this thread
and the sweeper racing) is harmless: claiming a job is a conditional UPDATE.

`TRUTHLENS_OUTBOX_PUBLISH=inline` publishes in the request thread after commit instead.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import uuid
from typing import NamedTuple

from celery import current_app
from django.db import DatabaseError, close_old_connections, connection
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import RedisError

from ..models import OutboxMessage
from .batches import drain

log = logging.getLogger(__name__)

BATCH = 500
IDLE_CLOSE_SECONDS = 2.0  # an idle relay gives its database connection back


class Message(NamedTuple):
    id: int
    job_id: uuid.UUID
    task: str
    queue: str


_queue: queue.SimpleQueue[Message | None] = queue.SimpleQueue()
_lock = threading.Lock()
_thread: threading.Thread | None = None
_pid: int | None = None


def submit(message: Message) -> None:
    """Queue a committed message for the broker (starts this process's relay if needed)."""
    _ensure_started()
    _queue.put(message)


def _ensure_started() -> None:
    global _thread, _pid, _queue
    if _thread is not None and _pid == os.getpid() and _thread.is_alive():
        return
    with _lock:
        if _thread is not None and _pid == os.getpid() and _thread.is_alive():
            return
        if _pid != os.getpid():
            _queue = queue.SimpleQueue()  # a forked child does not inherit the parent's queue
        _pid = os.getpid()
        _thread = threading.Thread(target=_run, name="outbox-relay", daemon=True)
        _thread.start()


def stop(timeout: float = 10) -> None:
    """Publish what is queued, then end the thread and close its connection (tests)."""
    global _thread
    with _lock:
        thread = _thread
        _thread = None
    if thread is not None and thread.is_alive():
        _queue.put(None)
        thread.join(timeout)


def _run() -> None:
    while True:
        try:
            first = _queue.get(timeout=IDLE_CLOSE_SECONDS)
        except queue.Empty:
            connection.close()
            continue
        batch, stopping = drain(_queue, first, BATCH)
        if batch:
            try:
                publish_batch(batch)
            except Exception:  # the thread must outlive any one batch; the sweeper retries
                log.exception("outbox relay batch failed; the sweeper's relay will publish it")
        if stopping:
            connection.close()
            return


def publish_batch(batch: list[Message]) -> int:
    """Send `batch` to the broker, mark what was sent published (one UPDATE)."""
    sent: list[int] = []
    for message in batch:
        try:
            current_app.send_task(
                message.task, args=[str(message.job_id)], queue=message.queue, retry=False
            )
        except (KombuOperationalError, RedisError, OSError) as exc:
            log.warning(
                "broker unavailable, %d outbox messages left for the sweeper's relay: %s",
                len(batch) - len(sent),
                exc,
            )
            break
        sent.append(message.id)
    if sent:
        close_old_connections()
        try:
            OutboxMessage.objects.filter(pk__in=sent, published_at__isnull=True).update(
                published_at=timezone.now()
            )
        except DatabaseError as exc:  # sent but not marked: the sweeper may send them again
            log.warning("could not mark %d outbox messages published: %s", len(sent), exc)
            connection.close()
    return len(sent)
