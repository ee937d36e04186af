"""Exceptions. Every API error carries the server's problem+json `type`, `title` and `detail`."""

from __future__ import annotations

import datetime as dt
from email.utils import parsedate_to_datetime
from typing import Any

import httpx


class TruthLensError(Exception):
    """Base class of every error this package raises."""


class APIError(TruthLensError):
    """The API answered with an error status (RFC 7807 problem+json).

    `type` is the stable problem URI (`https://docs.truthlens.dev/problems/<slug>`),
    `slug` its last part, `errors` the field errors of a validation problem.
    """

    def __init__(
        self,
        status: int,
        type: str,
        title: str,
        detail: str,
        errors: list[dict[str, Any]] | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
        body: Any = None,
    ):
        self.status = status
        self.type = type
        self.title = title
        self.detail = detail
        self.errors = errors or []
        self.request_id = request_id
        self.retry_after = retry_after
        self.body = body
        fields = "; ".join(f"{e.get('field')}: {e.get('message')}" for e in self.errors)
        super().__init__(f"{status} {title}: {detail}" + (f" ({fields})" if fields else ""))

    @property
    def slug(self) -> str:
        return self.type.rstrip("/").rsplit("/", 1)[-1]


class BadRequestError(APIError):
    """400: a field, a query parameter or the JSON itself is invalid (`errors` names it)."""


class AuthenticationError(APIError):
    """401: missing, unknown or revoked API key."""


class PermissionDeniedError(APIError):
    """403: a read-only key tried to write, or a plan limit refuses it."""


class NotFoundError(APIError):
    """404: missing, or another tenant's."""


class ConflictError(APIError):
    """409: an Idempotency-Key reused with another body, or a name taken."""


class PayloadTooLargeError(APIError):
    """413: the body or document is over the size limit."""


class RateLimitError(APIError):
    """429: over the plan's rate (`rate-limited`) or its monthly quota (`quota-exceeded`)."""


class ServerError(APIError):
    """5xx: the server or one of its dependencies failed (retried before it is raised)."""


class VerificationTimeout(TruthLensError):
    """`verify()` or `wait()` gave up before the verification reached a final status."""

    def __init__(self, verification_id: str, waited_s: float):
        self.verification_id = verification_id
        self.waited_s = waited_s
        super().__init__(f"{verification_id} not final after {waited_s:.0f}s")


class IndexingError(TruthLensError):
    """A knowledge-base document failed to index (its `error` says why), or took too long."""


_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    429: RateLimitError,
}


def retry_after_seconds(response: httpx.Response) -> float | None:
    """`Retry-After` in seconds (delta-seconds or an HTTP date), or None."""
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - dt.datetime.now(dt.timezone.utc)).total_seconds())


def error_from_response(response: httpx.Response) -> APIError:
    """The exception for an error response; a body that is not problem+json still gives
    a useful message (the status and the start of the body)."""
    try:
        body: Any = response.json()
    except ValueError:
        body = None
    problem = body if isinstance(body, dict) else {}
    if "error" in problem and isinstance(problem["error"], dict) and "title" not in problem:
        # the gateway's OpenAI/Anthropic error shapes
        problem = {"title": problem["error"].get("type", ""), **problem["error"]}
    status = response.status_code
    cls = _BY_STATUS.get(status, ServerError if status >= 500 else APIError)
    return cls(
        status=status,
        type=str(problem.get("type") or "about:blank"),
        title=str(problem.get("title") or response.reason_phrase or "Error"),
        detail=str(problem.get("detail") or problem.get("message") or response.text[:500]),
        errors=problem.get("errors") if isinstance(problem.get("errors"), list) else None,
        request_id=response.headers.get("X-Request-ID"),
        retry_after=retry_after_seconds(response),
        body=body,
    )
