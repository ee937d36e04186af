"""The dashboard's answer to a body over the size limit: its own error page, not problem+json.

`api.middleware.BodySizeLimitMiddleware` measures the body first and marks dashboard
requests that are too big; this middleware sits after the session and authentication
middleware (so the page has its sidebar) and before any view or the CSRF check reads
the body, and answers 413 in HTML.
"""

from __future__ import annotations

from django.shortcuts import render

from .scoping import resolve_scope


class BodyTooLargeMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = getattr(request, "body_limit_exceeded", None)
        if limit is None:
            return self.get_response(request)
        if request.user.is_authenticated:
            request.scope = resolve_scope(request)
        return render(
            request,
            "dashboard/error.html",
            {"status": 413, "limit_mib": limit / 1_048_576, "back": request.path},
            status=413,
        )
