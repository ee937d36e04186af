"""`/v1/usage`: the tenant's usage and price for a month.

A summary of the monthly billing report (`verification.billing.report`), so the
two endpoints and the dashboard never disagree.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions
from rest_framework.response import Response

from verification.billing.report import BadMonth, current_month, monthly_report
from verification.models import UsageRecord

from ..schema import MONTH_PATTERN
from ..serializers.usage import UsageReportSerializer
from .base import TenantScopedView


class UsageView(TenantScopedView):
    serializer_class = UsageReportSerializer

    def base_queryset(self):  # the report builder filters by tenant itself
        return UsageRecord.objects.all()

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "month", str, description="YYYY-MM (default: current)", pattern=MONTH_PATTERN
            )
        ],
        responses=UsageReportSerializer,
    )
    def get(self, request):
        try:
            # `month=` (empty) is a bad month, not the current one
            report = monthly_report(self.tenant, request.query_params.get("month", current_month()))
        except BadMonth as exc:
            raise exceptions.ValidationError({"month": "must look like YYYY-MM."}) from exc
        return Response(
            {
                "month": report.month,
                "verifications": report.verifications,
                "detector_tokens": report.detector_tokens,
                "provider_cost_usd": float(report.provider_cost_usd),
                "tenant_provider_cost_usd": float(report.tenant_provider_cost_usd),
                "price_usd": float(report.price_usd),
                "web_search_queries": report.search_queries,
                "web_search_cost_usd": float(report.search_cost_usd),
                "by_mode": {
                    line.mode: {
                        "verifications": line.verifications,
                        "detector_tokens": line.detector_tokens,
                        "provider_cost_usd": float(line.provider_cost_usd),
                        "tenant_provider_cost_usd": float(line.tenant_provider_cost_usd),
                        "price_usd": float(line.price_usd),
                        "web_search_queries": line.search_queries,
                        "web_search_cost_usd": float(line.search_cost_usd),
                    }
                    for line in report.by_mode
                },
            }
        )
