"""Mode selection: each bandit arm's Beta posterior per query type (empty until arms exist)."""

from __future__ import annotations

from django.db.models import Count
from django.shortcuts import render

from verification.models import VerificationJob, plan_key

from ..arms import arms_for, grouped
from ..policy.actions import current_document
from ..scoping import tenant_view


@tenant_view
def modes(request, scope):
    arms = arms_for(scope)
    # What actually ran, by mode source, is known today even without the bandit.
    sources = (
        scope.filter(VerificationJob.objects.all())
        .values(mode=plan_key("mode"), mode_source=plan_key("mode_source"))
        .exclude(mode="")
        .annotate(n=Count("id"))
        .order_by("mode", "mode_source")
    )
    return render(
        request,
        "dashboard/modes.html",
        {
            "nav": "modes",
            "groups": grouped(arms),
            "policy": current_document(scope.tenant),
            "sources": list(sources),
        },
    )
