"""The overview: volume, detection, scores, latency and cost over a date range."""

from __future__ import annotations

from django.shortcuts import render

from quality.drift import current_drift, weekly_agreement
from verification.billing.meter import meter

from ..daterange import PRESETS, form_errors, parse_range
from ..overview_stats import overview, scoped_sources
from ..scoping import tenant_view


@tenant_view
def overview_page(request, scope):
    period, form = parse_range(request.GET)
    jobs, usage = scoped_sources(scope)
    stats = overview(jobs, usage, period)
    # An invalid range (inverted, too long, year 9999) draws the default period with the errors.
    errors = [] if request.GET.get("days") in dict(PRESETS) else form_errors(form)
    return render(
        request,
        "dashboard/overview.html",
        {
            "nav": "overview",
            "period": period,
            "range_form": form,
            "presets": PRESETS,
            "active_preset": period.preset,
            "stats": stats,
            "charts": stats.charts(),
            "range_errors": errors,
            "agreement_weeks": weekly_agreement(scope.tenant),
            "drift": current_drift(scope.tenant),
            "meter": meter(scope.tenant),
        },
    )
