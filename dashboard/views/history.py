"""Verification history: filterable, paginated, one query for the page (spans counted in SQL)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.shortcuts import render

from verification.models import VerificationJob

from ..history_filters import HistoryFilter
from ..paging import page_or_first
from ..scoping import tenant_view

PAGE_SIZE = 25


@tenant_view
def history(request, scope):
    filters = HistoryFilter(
        request.GET or None, queryset=scope.filter(VerificationJob.objects.all())
    )
    jobs = (
        filters.qs.defer(
            "context", "messages", "final_response", "coverage", "citations", "metadata"
        )
        .annotate(span_count=Count("spans", filter=Q(spans__iteration=0)))
        .order_by("-created_at", "-id")
    )
    page, page_error = page_or_first(Paginator(jobs, PAGE_SIZE), request.GET.get("page"))
    params = request.GET.copy()
    params.pop("page", None)
    return render(
        request,
        "dashboard/history.html",
        {
            "nav": "history",
            "form": filters.form,
            "page": page,
            "page_error": page_error,
            "filter_query": params.urlencode(),
        },
    )
