"""RFC 7807 problem+json for every error the API returns.

`type` URIs are stable identifiers documented in docs/api.md "Errors"; field errors
carry a dotted path (`context.2`, `messages.0.role`). No stack trace or
exception text of an unexpected error ever leaves the server.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import Http404, JsonResponse
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from verification.actions.create import BudgetExceeded, QuotaExceeded

log = logging.getLogger(__name__)

PROBLEM_BASE = "https://docs.truthlens.dev/problems/"
CONTENT_TYPE = "application/problem+json"

_TYPES = {
    400: ("invalid-request", "Invalid request"),
    401: ("unauthenticated", "Authentication required"),
    403: ("forbidden", "Forbidden"),
    404: ("not-found", "Not found"),
    405: ("method-not-allowed", "Method not allowed"),
    406: ("not-acceptable", "Not acceptable"),
    409: ("conflict", "Conflict"),
    413: ("payload-too-large", "Payload too large"),
    415: ("unsupported-media-type", "Unsupported media type"),
    429: ("rate-limited", "Too many requests"),
    500: ("internal-error", "Internal server error"),
    503: ("unavailable", "Service unavailable"),
}


def problem(
    status_code: int,
    detail: str,
    *,
    slug: str | None = None,
    title: str | None = None,
    errors: list[dict[str, str]] | None = None,
    instance: str | None = None,
) -> dict[str, Any]:
    default_slug, default_title = _TYPES.get(status_code, ("error", "Error"))
    body: dict[str, Any] = {
        "type": PROBLEM_BASE + (slug or default_slug),
        "title": title or default_title,
        "status": status_code,
        "detail": detail,
    }
    if instance:
        body["instance"] = instance
    if errors:
        body["errors"] = errors
    return body


def problem_response(status_code: int, detail: str, **kw: Any) -> JsonResponse:
    """A plain Django response (for middleware and URL-level handlers)."""
    return JsonResponse(
        problem(status_code, detail, **kw), status=status_code, content_type=CONTENT_TYPE
    )


def flatten_errors(detail: Any, path: str = "") -> list[dict[str, str]]:
    """Turn DRF's nested error structure into `[{"field": "a.0.b", "message": ...}]`."""
    out: list[dict[str, str]] = []
    if isinstance(detail, dict):
        for key, value in detail.items():
            # str(): DRF keys list-item errors by int, and index 0 must not read as "no field"
            field = str(key) if key != "non_field_errors" else ""
            out.extend(flatten_errors(value, f"{path}.{field}".strip(".") if field else path))
    elif isinstance(detail, list):
        if all(not isinstance(item, (dict, list)) for item in detail):
            out.extend({"field": path, "message": str(item)} for item in detail)
        else:
            for index, item in enumerate(detail):
                if item:
                    out.extend(flatten_errors(item, f"{path}.{index}".strip(".")))
    else:
        out.append({"field": path, "message": str(detail)})
    return out


def problem_exception_handler(exc, context):
    request = context.get("request")
    instance = request.path if request is not None else None
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, QuotaExceeded):
        exc = QuotaExhausted(str(exc), retry_after=exc.retry_after)
    elif isinstance(exc, BudgetExceeded):
        exc = BudgetSpent(str(exc), retry_after=exc.retry_after)
    elif isinstance(exc, (OperationalError, InterfaceError)):
        # Postgres restarting or unreachable: a transient outage, not a bug. Answer
        # 503 + Retry-After so clients back off and retry instead of seeing a 500.
        log.warning("database unavailable: %s", type(exc).__name__)
        exc = ServiceUnavailable("The database is temporarily unavailable; retry shortly.")
    response = exception_handler(exc, context)
    if response is None:
        log.exception("unhandled API error", exc_info=exc)
        return Response(
            problem(500, "An unexpected error occurred; it has been logged.", instance=instance),
            status=500,
            content_type=CONTENT_TYPE,
        )
    if isinstance(exc, exceptions.ValidationError):
        errors = flatten_errors(exc.detail)
        body = problem(
            400,
            "The request has invalid fields.",
            slug="validation-error",
            title="Validation failed",
            errors=errors,
            instance=instance,
        )
    elif isinstance(exc, exceptions.ParseError):
        body = problem(
            400, str(exc.detail), slug="malformed-json", title="Malformed JSON", instance=instance
        )
    elif isinstance(exc, QuotaExhausted):
        response["Retry-After"] = str(exc.retry_after)
        body = problem(
            429,
            f"{exc.detail}; it renews at the start of next month (UTC).",
            slug="quota-exceeded",
            title="Monthly quota exceeded",
            instance=instance,
        )
    elif isinstance(exc, BudgetSpent):
        response["Retry-After"] = str(exc.retry_after)
        body = problem(
            402,
            f"{exc.detail}.",
            slug="budget-exceeded",
            title="Monthly budget reached",
            instance=instance,
        )
    elif isinstance(exc, exceptions.Throttled):
        wait = int(exc.wait or 1)
        response["Retry-After"] = str(max(1, wait))
        body = problem(429, f"Rate limit exceeded; retry in {max(1, wait)} s.", instance=instance)
    else:
        if response.status_code == 503:
            response["Retry-After"] = "5"
        detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
        slug = getattr(exc, "problem_slug", None)
        body = problem(response.status_code, str(detail), slug=slug, instance=instance)
    response.data = body
    response.content_type = CONTENT_TYPE
    return response


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "Conflict."
    problem_slug = "conflict"


class ServiceUnavailable(exceptions.APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "The service is temporarily unavailable; retry shortly."
    problem_slug = "unavailable"


class QuotaExhausted(exceptions.APIException):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_detail = "The monthly quota is used up."
    problem_slug = "quota-exceeded"

    def __init__(self, detail: str, retry_after: int):
        super().__init__(detail)
        self.retry_after = retry_after


class BudgetSpent(exceptions.APIException):
    status_code = status.HTTP_402_PAYMENT_REQUIRED
    default_detail = "The monthly budget is spent."
    problem_slug = "budget-exceeded"

    def __init__(self, detail: str, retry_after: int):
        super().__init__(detail)
        self.retry_after = retry_after
