"""Who changed the policy, when, and what changed (a YAML diff per change)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.shortcuts import render

from ..models import PolicyChange
from ..paging import page_or_first
from ..scoping import tenant_view


@tenant_view
def history(request, scope):
    changes = scope.filter(PolicyChange.objects.select_related("actor"))
    page, page_error = page_or_first(Paginator(changes, 10), request.GET.get("page"))
    return render(
        request,
        "dashboard/policy_history.html",
        {"nav": "policy", "page": page, "page_error": page_error},
    )
