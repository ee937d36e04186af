"""Usage and billing: plans, the tenant's monthly report (page, CSV, JSON), staff revenue."""

from __future__ import annotations

from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import render

from tenants.models import Plan, Tenant
from verification.billing.report import (
    BadMonth,
    all_tenants_revenue,
    csv_filename,
    current_month,
    monthly_report,
    report_as_csv,
    report_as_dict,
    shift_month,
)

from ..scoping import tenant_view


def _report(scope, month: str):
    try:
        return monthly_report(scope.tenant, month)
    except BadMonth as exc:
        raise Http404 from exc


@tenant_view
def billing(request, scope, month: str | None = None):
    month = month or request.GET.get("month") or current_month()
    report = _report(scope, month)
    return render(
        request,
        "dashboard/billing.html",
        {
            "nav": "billing",
            "report": report,
            "plans": Plan.objects.order_by("name"),
            "tenant_plan": scope.tenant.plan_id,
            "previous": shift_month(month, -1),
            "next": shift_month(month, 1),
        },
    )


@tenant_view
def report_csv(request, scope, month: str):
    report = _report(scope, month)
    response = HttpResponse(report_as_csv(report), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{csv_filename(report)}"'
    return response


@tenant_view
def report_json(request, scope, month: str):
    return JsonResponse(report_as_dict(_report(scope, month)))


@tenant_view(staff=True)
def revenue(request, scope):
    month = request.GET.get("month") or current_month()
    try:
        rows = all_tenants_revenue(month)
    except BadMonth as exc:
        raise Http404 from exc
    totals = {
        "verifications": sum(r["verifications"] for r in rows),
        "price_usd": sum((r["price_usd"] for r in rows), start=0),
        "provider_cost_usd": sum((r["provider_cost_usd"] for r in rows), start=0),
    }
    totals["margin_usd"] = totals["price_usd"] - totals["provider_cost_usd"]
    chart = {
        "labels": [r["tenant"] for r in rows],
        "price": [float(r["price_usd"]) for r in rows],
        "provider": [float(r["provider_cost_usd"]) for r in rows],
    }
    return render(
        request,
        "dashboard/revenue.html",
        {
            "nav": "revenue",
            "month": month,
            "rows": rows,
            "totals": totals,
            "chart_data": {"revenue": chart},
            "previous": shift_month(month, -1),
            "next": shift_month(month, 1),
            "tenant_count": Tenant.objects.count(),
        },
    )
