"""Who changed the policy, when, and what changed (a YAML diff per change); restore."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from tenants.audit import record

from ..models import PolicyChange
from ..paging import page_or_first
from ..policy.actions import UnpublishablePolicy, current_version, restore_version
from ..policy.yaml_io import problem_messages
from ..scoping import tenant_view


@tenant_view
def history(request, scope):
    changes = scope.filter(PolicyChange.objects.select_related("actor"))
    page, page_error = page_or_first(Paginator(changes, 10), request.GET.get("page"))
    return render(
        request,
        "dashboard/policy_history.html",
        {
            "nav": "policy",
            "page": page,
            "page_error": page_error,
            "current_version": current_version(scope.tenant),
        },
    )


@require_POST
@tenant_view(edit=True)
def restore(request, scope, version: int):
    try:
        change = restore_version(scope.tenant, request.user, version)
    except PolicyChange.DoesNotExist as exc:  # another tenant's version reads as missing
        raise Http404 from exc
    except UnpublishablePolicy as exc:
        messages.error(
            request,
            f"Version {version} cannot be published again: "
            + "; ".join(problem_messages(exc.problems)),
        )
        return redirect("dashboard:policy-history")
    if change is None:
        messages.info(request, f"Version {version} is the current policy already.")
    else:
        messages.success(request, f"Version {version} restored as version {change.version}.")
        record(
            request,
            "policy.restored",
            change,
            details={"version": change.version, "restored_from": version},
        )
    return redirect("dashboard:policy")
