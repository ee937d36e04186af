"""Usage and billing: plans, the tenant's monthly report (page, CSV, JSON), staff revenue."""

from __future__ import annotations

from decimal import Decimal

from django import forms
from django.contrib import messages
from django.db.models import Q
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from tenants.audit import record
from tenants.models import Plan, Tenant
from verification.billing.report import (
    all_tenants_revenue,
    current_month,
    monthly_report,
    report_as_csv,
    report_as_dict,
    report_filename,
    shift_month,
)

from ..daterange import parse_month
from ..scoping import tenant_view


def _plans_for(scope):
    """Staff see every plan; a tenant sees the public ones and its own."""
    plans = Plan.objects.order_by("name")
    if scope.is_staff:
        return plans
    return plans.filter(Q(is_public=True) | Q(pk=scope.tenant.plan_id))


class BudgetForm(forms.Form):
    monthly_budget_usd = forms.DecimalField(
        label="Monthly budget (USD)",
        required=False,
        min_value=Decimal("0.01"),
        max_value=Decimal("9999999999.99"),
        decimal_places=2,
        help_text="Empty: no budget. Alerts at 80 % and 100 % by e-mail and webhook.",
    )
    budget_hard = forms.TypedChoiceField(
        label="When it is reached",
        choices=[("false", "soft: alert only"), ("true", "hard: refuse new verifications (402)")],
        coerce=lambda v: v == "true",
        initial="false",
    )


def _budget_form(tenant, data=None) -> BudgetForm:
    initial = {
        "monthly_budget_usd": tenant.monthly_budget_usd,
        "budget_hard": "true" if tenant.budget_hard else "false",
    }
    return BudgetForm(data, initial=initial)


@tenant_view
def billing(request, scope, month: str | None = None, budget_form: BudgetForm | None = None):
    # A bad month (garbage, 9999-12) shows this month's report with the error.
    month, errors = parse_month(month or request.GET.get("month"), current_month())
    report = monthly_report(scope.tenant, month)
    return render(
        request,
        "dashboard/billing.html",
        {
            "nav": "billing",
            "report": report,
            "plans": _plans_for(scope),
            "tenant_plan": scope.tenant.plan_id,
            "previous": shift_month(month, -1),
            "next": shift_month(month, 1),
            "month_errors": errors,
            "budget_form": budget_form or _budget_form(scope.tenant),
        },
        status=400 if budget_form is not None else 200,
    )


@require_POST
@tenant_view(edit=True)
def budget(request, scope):
    form = _budget_form(scope.tenant, request.POST)
    if not form.is_valid():
        return billing(request, budget_form=form)
    tenant = scope.tenant
    old = (tenant.monthly_budget_usd, tenant.budget_hard)
    tenant.monthly_budget_usd = form.cleaned_data["monthly_budget_usd"]
    tenant.budget_hard = (
        bool(form.cleaned_data["budget_hard"]) and tenant.monthly_budget_usd is not None
    )
    tenant.save(update_fields=["monthly_budget_usd", "budget_hard"])
    if old != (tenant.monthly_budget_usd, tenant.budget_hard):
        record(
            request,
            "budget.changed",
            tenant,
            details={
                "monthly_budget_usd": str(tenant.monthly_budget_usd or ""),
                "hard": tenant.budget_hard,
            },
        )
    messages.success(request, "Budget saved.")
    return redirect("dashboard:billing")


def _export_error(errors: list[str], as_json: bool) -> HttpResponse:
    if as_json:
        return JsonResponse({"errors": {"month": errors}}, status=400)
    return HttpResponse("\n".join(errors), status=400, content_type="text/plain; charset=utf-8")


@tenant_view
def report_csv(request, scope, month: str):
    month, errors = parse_month(month, "")
    if errors:
        return _export_error(errors, as_json=False)
    report = monthly_report(scope.tenant, month)
    response = HttpResponse(report_as_csv(report), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{report_filename(report, "csv")}"'
    return response


@tenant_view
def report_json(request, scope, month: str):
    month, errors = parse_month(month, "")
    if errors:
        return _export_error(errors, as_json=True)
    report = monthly_report(scope.tenant, month)
    response = JsonResponse(report_as_dict(report))
    # A link to JSON opens in the tab unless the response says it is a file.
    response["Content-Disposition"] = f'attachment; filename="{report_filename(report, "json")}"'
    return response


@tenant_view(staff=True)
def revenue(request, scope):
    month, errors = parse_month(request.GET.get("month"), current_month())
    rows = all_tenants_revenue(month)
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
            "month_errors": errors,
        },
    )
