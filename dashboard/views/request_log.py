"""The tenant's API request log: its newest `REQUEST_LOG_ROWS` requests, searchable by request
id, failures first if asked; each failure shows the error body it answered."""

from __future__ import annotations

import json

from django import forms
from django.conf import settings
from django.core.paginator import Paginator
from django.shortcuts import render

from tenants.request_log import RequestLogEntry

from ..paging import page_or_first
from ..scoping import tenant_view

PAGE_SIZE = 50


class RequestLogFilter(forms.Form):
    request_id = forms.RegexField(
        label="Request id",
        required=False,
        max_length=64,
        regex=r"^[A-Za-z0-9._-]+$",
        error_messages={"invalid": "A request id has letters, digits, '.', '_' and '-' only."},
        help_text="The X-Request-Id header of the answer.",
    )
    outcome = forms.ChoiceField(
        label="Outcome",
        required=False,
        choices=[("", "all"), ("failed", "failures (4xx, 5xx)"), ("ok", "successes")],
    )


@tenant_view
def request_log(request, scope):
    rows = settings.TRUTHLENS["REQUEST_LOG_ROWS"]
    newest = scope.filter(RequestLogEntry.objects.all()).order_by("-created_at", "-id")
    # the newest rows only, even before the maintenance task trimmed the rest
    kept = newest.filter(pk__in=newest.values("pk")[:rows])
    filters = RequestLogFilter(request.GET or None)
    if filters.is_valid():
        data = filters.cleaned_data
        if data["request_id"]:
            kept = kept.filter(request_id=data["request_id"])
        if data["outcome"] == "failed":
            kept = kept.filter(status__gte=400)
        elif data["outcome"] == "ok":
            kept = kept.filter(status__lt=400)
    page, page_error = page_or_first(Paginator(kept, PAGE_SIZE), request.GET.get("page"))
    for entry in page.object_list:
        entry.problem_text = json.dumps(entry.problem, indent=2) if entry.problem else ""
    params = request.GET.copy()
    params.pop("page", None)
    return render(
        request,
        "dashboard/request_log.html",
        {
            "nav": "requests",
            "filters": filters,
            "page": page,
            "page_error": page_error,
            "rows": rows,
            "retention_days": settings.TRUTHLENS["REQUEST_LOG_RETENTION_DAYS"],
        },
        status=400 if filters.is_bound and not filters.is_valid() else 200,
    )
