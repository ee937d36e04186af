"""Write the console's request log: one INSERT per API request a tenant's key made.

Requests whose key is not known (401, a locked-out address) belong to no tenant and are
not logged. A failure keeps its error body (problem+json, or the gateway's own JSON error),
up to `MAX_BODY` bytes, so the console can show why it failed. The latency is the time to
the response's headers (a stream's body is not waited for).
"""

from __future__ import annotations

import json
import logging
import time
from contextlib import nullcontext

from django.db import DatabaseError, OperationalError, connection, transaction

from tenants.request_log import RequestLogEntry

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
            principal = getattr(request, "user", None)
            key = getattr(principal, "key", None)  # the API's TenantPrincipal
            if key is not None:
                self._write(request, response, principal.tenant.pk, key.prefix, started)
        return response

    @staticmethod
    def _write(request, response, tenant_id: int, prefix: str, started: float) -> None:
        # A failed insert must not break an outer transaction: inside one, a savepoint;
        # outside (the usual case), the INSERT is its own transaction (no BEGIN/COMMIT).
        context = transaction.atomic() if connection.in_atomic_block else nullcontext()
        try:
            with context:
                RequestLogEntry.objects.create(
                    tenant_id=tenant_id,
                    key_prefix=prefix,
                    method=request.method[:8],
                    path=_text(request.path)[:300],
                    status=response.status_code,
                    latency_ms=int((time.monotonic() - started) * 1000),
                    request_id=getattr(request, "request_id", "")[:64],
                    problem=_problem(response),
                )
        except OperationalError as exc:
            # the database is down: one line per request, not a traceback
            log.warning(
                "request log row not written: database unavailable (%s)", type(exc).__name__
            )
        except (DatabaseError, ValueError):  # the log must never fail the request it describes
            log.warning("request log row not written", exc_info=True)
