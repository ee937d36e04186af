"""`/v1/usage`: the tenant's usage and price for a month."""

from __future__ import annotations

from django.db.models import Count, Sum
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions
from rest_framework.response import Response

from verification.billing_report import BadMonth, current_month, month_bounds
from verification.models import UsageRecord

from ..serializers import UsageReportSerializer
from .base import TenantScopedView


class UsageView(TenantScopedView):
    serializer_class = UsageReportSerializer

    def base_queryset(self):
        return UsageRecord.objects.all()

    @extend_schema(
        parameters=[OpenApiParameter("month", str, description="YYYY-MM (default: current)")],
        responses=UsageReportSerializer,
    )
    def get(self, request):
        label = request.query_params.get("month") or current_month()
        try:
            start, end = month_bounds(label)
        except BadMonth as exc:
            raise exceptions.ValidationError({"month": "must look like YYYY-MM."}) from exc
        rows = self.get_queryset().filter(created_at__gte=start, created_at__lt=end)
        by_mode = {
            r["mode"]: {
                "verifications": r["n"],
                "detector_tokens": r["tokens"] or 0,
                "provider_cost_usd": float(r["cost"] or 0),
                "price_usd": float(r["price"] or 0),
            }
            for r in rows.values("mode").annotate(
                n=Count("id"),
                tokens=Sum("detector_tokens"),
                cost=Sum("provider_cost_usd"),
                price=Sum("price_usd"),
            )
        }
        totals = rows.aggregate(
            n=Count("id"),
            tokens=Sum("detector_tokens"),
            price=Sum("price_usd"),
            cost=Sum("provider_cost_usd"),
        )
        return Response(
            {
                "month": label,
                "verifications": totals["n"],
                "detector_tokens": totals["tokens"] or 0,
                "provider_cost_usd": float(totals["cost"] or 0),
                "price_usd": float(totals["price"] or 0),
                "by_mode": by_mode,
            }
        )
