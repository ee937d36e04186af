"""Write the console's request log: one INSERT per API request a tenant's key made.

Requests whose key is not known (401, a locked-out address) belong to no tenant and are
not logged. A failure keeps its error body (problem+json, or the gateway's own JSON error),
up to `MAX_BODY` bytes, so the console can show why it failed. The latency is the time to
the response's headers (a stream's body is not waited for). Rows are written by a
background thread of the process, many per INSERT (`_BackgroundWriter`), unless
`TRUTHLENS_REQUEST_LOG_WRITE=inline`.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import threading
import time
from contextlib import nullcontext
from typing import Any

from django.conf import settings
from django.db import (
    DatabaseError,
    OperationalError,
    close_old_connections,
    connection,
    transaction,
)

from tenants.request_log import RequestLogEntry
from verification.queue.batches import drain

log = logging.getLogger(__name__)

PREFIX = "/v1/"
MAX_BODY = 8192


def _text(value: str) -> str:
    """Storable text: a lone surrogate (a client may send one) or a NUL cannot go to Postgres."""
    return value.encode("utf-8", "replace").decode("utf-8").replace("\x00", "")


def _clean(value):
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, dict):
        return {_text(str(k)): _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def _problem(response) -> dict | None:
    if response.status_code < 400 or getattr(response, "streaming", False):
        return None
    if "json" not in response.get("Content-Type", ""):
        return None
    content = response.content
    if len(content) > MAX_BODY:
        return {"detail": "(the body was too long to keep)", "bytes": len(content)}
    try:
        body = json.loads(content)
    except ValueError:
        return None
    return _clean(body if isinstance(body, dict) else {"body": body})


class RequestLogMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.monotonic()
        response = self.get_response(request)
        if request.path.startswith(PREFIX):
            principal: Any = getattr(request, "user", None)
            key = getattr(principal, "key", None)  # the API's TenantPrincipal
            if key is not None:
                self._write(request, response, principal.tenant.pk, key.prefix, started)
        return response

    @staticmethod
    def _write(request, response, tenant_id: int, prefix: str, started: float) -> None:
        entry = RequestLogEntry(
            tenant_id=tenant_id,
            key_prefix=prefix,
            method=request.method[:8],
            path=_text(request.path)[:300],
            status=response.status_code,
            latency_ms=int((time.monotonic() - started) * 1000),
            request_id=getattr(request, "request_id", "")[:64],
            problem=_problem(response),
        )
        if settings.TRUTHLENS["REQUEST_LOG_WRITE"] == "background":
            _writer.submit(entry)
        else:
            _insert([entry])


def _insert(entries: list[RequestLogEntry]) -> None:
    # A failed insert must not break an outer transaction: inside one, a savepoint;
    # outside (the usual case), the INSERT is its own transaction (no BEGIN/COMMIT).
    context = transaction.atomic() if connection.in_atomic_block else nullcontext()
    try:
        with context:
            if len(entries) == 1:
                entries[0].save(force_insert=True)
            else:
                RequestLogEntry.objects.bulk_create(entries)
    except OperationalError as exc:
        # the database is down: one line per request, not a traceback
        log.warning("request log row not written: database unavailable (%s)", type(exc).__name__)
    except (DatabaseError, ValueError):  # the log must never fail the request it describes
        log.warning("request log row not written", exc_info=True)


class _BackgroundWriter:
    """Writes the request log from one thread per process, many rows per INSERT, so an
    API request does not wait for (or pay a commit for) its own log row. Rows still in
    memory when the process is killed are lost: the request log is a diagnostic aid,
    not a record of what is billed. `TRUTHLENS_REQUEST_LOG_WRITE=inline` writes each
    row in its request instead."""

    BATCH = 500
    IDLE_CLOSE_SECONDS = 2.0

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[RequestLogEntry | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid: int | None = None

    def submit(self, entry: RequestLogEntry) -> None:
        if not (self._thread and self._pid == os.getpid() and self._thread.is_alive()):
            with self._lock:
                if not (self._thread and self._pid == os.getpid() and self._thread.is_alive()):
                    if self._pid != os.getpid():
                        self._queue = queue.SimpleQueue()
                    self._pid = os.getpid()
                    self._thread = threading.Thread(
                        target=self._run, name="request-log", daemon=True
                    )
                    self._thread.start()
        self._queue.put(entry)

    def stop(self, timeout: float = 10) -> None:
        """Write what is queued, end the thread, close its connection (tests)."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None and thread.is_alive():
            self._queue.put(None)
            thread.join(timeout)

    def _run(self) -> None:
        while True:
            try:
                first = self._queue.get(timeout=self.IDLE_CLOSE_SECONDS)
            except queue.Empty:
                connection.close()
                continue
            batch, stopping = drain(self._queue, first, self.BATCH)
            if batch:
                close_old_connections()
                _insert(batch)
            if stopping:
                connection.close()
                return


_writer = _BackgroundWriter()
