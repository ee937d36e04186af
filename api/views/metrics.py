"""`/metrics`, optionally behind a bearer token (TRUTHLENS_METRICS_TOKEN) in production."""

from __future__ import annotations

import hmac

from django.conf import settings
from django_prometheus.exports import ExportToDjangoView

from ..errors import problem_response


def metrics(request):
    token = settings.METRICS_TOKEN
    if token:
        presented = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        if not hmac.compare_digest(presented.encode(), token.encode()):
            return problem_response(401, "A metrics token is required.", instance=request.path)
    return ExportToDjangoView(request)
