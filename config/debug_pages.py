"""No technical error pages, even under DEBUG (`make run` sets it).

With DEBUG on, Django answers an unrouted path with its technical 404 page, which
lists every URL pattern, and an unhandled exception with a traceback page, to any
client that can reach the port. This middleware (first in MIDDLEWARE) answers both
with the same handlers as production (`config.urls.handler404` / `handler500`,
problem+json); the traceback still goes to the log.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.http import Http404
from django.urls import get_resolver

log = logging.getLogger("django.request")


class NoTechnicalPagesMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        # no view was resolved: Django's resolver 404 (its technical page under DEBUG)
        if settings.DEBUG and response.status_code == 404 and request.resolver_match is None:
            return _handler(404)(request, Http404())
        # a request refused before routing (a Host not allowed, a malformed one): Django's
        # DEBUG page for the SuspiciousOperation, HTML, instead of the production handler
        if (
            settings.DEBUG
            and response.status_code == 400
            and request.resolver_match is None
            and response.get("Content-Type", "").startswith("text/html")
        ):
            return _handler(400)(request, None)
        return response

    def process_exception(self, request, exception):
        """An exception a view let escape: Django would render its DEBUG page."""
        if not settings.DEBUG:
            return None  # Django calls the same handlers itself
        if isinstance(exception, Http404):
            return _handler(404)(request, exception)
        log.error("Internal Server Error: %s", request.path, exc_info=exception)
        return _handler(500)(request)


def _handler(status: int):
    return get_resolver().resolve_error_handler(status)
