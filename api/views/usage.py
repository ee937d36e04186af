"""`/v1/usage`: the tenant's usage and price for a month."""

from __future__ import annotations

import datetime as dt

from django.db.models import Count, Sum
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions
from rest_framework.response import Response

from verification.models import UsageRecord

from ..serializers import UsageReportSerializer
from .base import TenantScopedView


def month_bounds(value: str | None) -> tuple[dt.datetime, dt.datetime, str]:
    today = dt.datetime.now(dt.UTC)
    label = value or f"{today.year:04d}-{today.month:02d}"
    try:
        start = dt.datetime.strptime(label, "%Y-%m").replace(tzinfo=dt.UTC)
    except ValueError as exc:
        raise exceptions.ValidationError({"month": "must look like YYYY-MM."}) from exc
    end = (start + dt.timedelta(days=32)).replace(day=1)
    return start, end, label


class UsageView(TenantScopedView):
    serializer_class = UsageReportSerializer

    def base_queryset(self):
        return UsageRecord.objects.all()

    @extend_schema(
        parameters=[OpenApiParameter("month", str, description="YYYY-MM (default: current)")],
        responses=UsageReportSerializer,
    )
    def get(self, request):
        start, end, label = month_bounds(request.query_params.get("month"))
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
