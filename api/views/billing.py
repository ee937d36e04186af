"""`GET /v1/billing/reports/{YYYY-MM}`: the key's tenant's monthly billing report.

JSON by default; CSV with `?format=csv` or `Accept: text/csv`. The numbers come
from the same builder as the dashboard's billing page, so the two never differ.
"""

from __future__ import annotations

import json

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, renderers
from rest_framework.response import Response

from verification.billing.report import (
    BadMonth,
    csv_filename,
    monthly_report,
    report_as_csv,
    report_as_dict,
)
from verification.models import UsageRecord

from ..schema import MONTH_PATTERN
from .base import TenantScopedView


class CSVRenderer(renderers.BaseRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, str):
            return data.encode(self.charset)
        # Errors keep their problem+json body (the handler sets that content type).
        return json.dumps(data).encode(self.charset)


class BillingReportView(TenantScopedView):
    renderer_classes = [renderers.JSONRenderer, CSVRenderer]

    def base_queryset(self):  # the report builder filters by tenant itself
        return UsageRecord.objects.all()

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "month",
                str,
                OpenApiParameter.PATH,
                description="YYYY-MM (UTC)",
                pattern=MONTH_PATTERN,
            ),  # fmt: skip
            OpenApiParameter(
                "format", str, enum=["json", "csv"], description="or Accept: text/csv"
            ),
        ],
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT, description="report (JSON or CSV)")},
    )
    def get(self, request, month: str, format=None):  # DRF's format suffix name
        try:
            report = monthly_report(self.tenant, month)
        except BadMonth as exc:
            raise exceptions.ValidationError({"month": "must look like YYYY-MM."}) from exc
        if request.accepted_renderer.format == "csv":
            response = Response(report_as_csv(report), content_type="text/csv; charset=utf-8")
            response["Content-Disposition"] = f'attachment; filename="{csv_filename(report)}"'
            return response
        return Response(report_as_dict(report))
