"""Request ids and the body-size limit, before anything parses the body."""

from __future__ import annotations

import re
import uuid

from django.conf import settings
from django.core.exceptions import RequestDataTooBig

from observability import tracing
from observability.logcontext import bind

from .errors import problem_response

_SAFE_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


class RequestIdMiddleware:
    """Accept a sane incoming X-Request-Id or mint one; echo it on the response."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        incoming = request.headers.get("X-Request-Id", "")
        request.request_id = incoming if _SAFE_ID.match(incoming) else uuid.uuid4().hex
        with (
            bind(request_id=request.request_id, tenant_id="", job_id=""),
            tracing.span("http.request", method=request.method, path=request.path),
        ):
            response = self.get_response(request)
        response["X-Request-Id"] = request.request_id
        return response


class BodySizeLimitMiddleware:
    """413 problem+json for bodies over TRUTHLENS_MAX_BODY_BYTES (chunked bodies included).

    Under `HTML_PREFIX` (the dashboard, a browser) the request is not answered here but
    marked (`request.body_limit_exceeded = limit`): the dashboard's own middleware, which
    runs after the session and the sign-in are known, answers 413 with its error page
    before anything reads the body.
    """

    HTML_PREFIX = "/dashboard/"

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = limit_for(request.path)
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return problem_response(400, "Invalid Content-Length header.", instance=request.path)
        if length > limit or (
            request.method in ("POST", "PUT", "PATCH")
            and not length
            and _body_too_big(request, limit)
        ):
            if request.path.startswith(self.HTML_PREFIX):
                request.body_limit_exceeded = limit
                return self.get_response(request)
            return problem_response(
                413, f"The request body exceeds the limit of {limit} bytes.", instance=request.path
            )
        return self.get_response(request)


_UPLOAD_PATH = re.compile(r"^/v1/knowledge-bases/[^/]+/documents(?:/[^/]+)?/?$")


def limit_for(path: str) -> int:
    """Document uploads may be larger (the plan's per-document limit is checked by the
    view, with its own message); every other body has the general limit."""
    if _UPLOAD_PATH.match(path):
        return settings.TRUTHLENS["MAX_UPLOAD_BYTES"]
    return settings.TRUTHLENS["MAX_BODY_BYTES"]


def _body_too_big(request, limit: int) -> bool:
    """A body with no declared length (chunked), read with Django's own cap."""
    try:
        return len(request.body) > limit
    except RequestDataTooBig:
        return True
