"""Correlation ids and redaction for structured logs.

The request id, tenant id and job id live in context variables: the API
middleware and authentication set them, Celery carries the request id in
task headers, and the worker binds the job and tenant. A logging filter
copies them onto every record, so each JSON line says which request, tenant
and job it belongs to. A second filter masks secrets that might slip into a
message (API keys, webhook secrets, bearer tokens).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

request_id_var: ContextVar[str] = ContextVar("request_id", default="")
tenant_id_var: ContextVar[str] = ContextVar("tenant_id", default="")
job_id_var: ContextVar[str] = ContextVar("job_id", default="")

_VARS = {"request_id": request_id_var, "tenant_id": tenant_id_var, "job_id": job_id_var}
_SECRETS = re.compile(r"(tl_[a-z0-9]{8}_)[A-Za-z0-9_-]+|(whsec_)[A-Za-z0-9_-]+|(Bearer\s+)\S+")


@contextmanager
def bind(**ids: str) -> Iterator[None]:
    """Set correlation ids for the duration of a block (nested binds restore on exit)."""
    tokens = [(_VARS[name], _VARS[name].set(str(value))) for name, value in ids.items()]
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


class ContextFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        for name, var in _VARS.items():
            if not getattr(record, name, ""):
                setattr(record, name, var.get())
        return True


def redact(text: str) -> str:
    return _SECRETS.sub(lambda m: (m.group(1) or m.group(2) or m.group(3)) + "[REDACTED]", text)


class RedactFilter(logging.Filter):
    """Mask secrets in the rendered message; answer texts are never logged by our code."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True
