"""Labelled datasets (`/v1/datasets`): create (upload, review queue, feedback), list,
read, download as the trainer's JSONL, delete."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import renderers, status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from quality import datasets
from quality.models import Dataset
from quality.rows import InvalidUpload, to_jsonl
from tenants.audit import record

from ..pagination import StrictLimitOffsetPagination
from ..serializers.datasets import DatasetCreateSerializer, DatasetSerializer
from .base import TenantScopedView
from .knowledge import UPLOAD_PARSERS, LimitRefused


class _Pages(StrictLimitOffsetPagination):
    default_limit = 50
    max_limit = 500


class _DatasetView(TenantScopedView):
    pagination_class = _Pages
    serializer_class = DatasetSerializer

    def base_queryset(self):
        return Dataset.objects.all()

    def get_dataset(self, dataset_id: str) -> Dataset:
        pk = Dataset.parse_public_id(dataset_id)
        found = self.get_queryset().filter(pk=pk).first() if pk else None
        if found is None:
            raise Http404("No such dataset.")  # another tenant's reads the same
        return found


def _create(tenant, data: DatasetCreateSerializer) -> Dataset:
    name, source = data.validated_data["name"], data.validated_data["source"]
    try:
        if source == "review":
            return datasets.create_from_labels(tenant, name)
        if source == "feedback":
            return datasets.create_from_feedback(tenant, name)
        return datasets.create_from_upload(tenant, name, data.raw(), data.validated_data["format"])
    except InvalidUpload as exc:
        # `rows.N.field` paths: every bad row is named; nothing was stored.
        raise ValidationError(
            {"rows": {str(e.row): {e.field or "row": [e.message]} for e in exc.errors}}
        ) from exc
    except datasets.EmptyDataset as exc:
        raise ValidationError({"source": [str(exc)]}) from exc
    except datasets.LimitExceeded as exc:
        raise LimitRefused(str(exc)) from exc


class DatasetList(_DatasetView):
    parser_classes = UPLOAD_PARSERS

    @extend_schema(operation_id="datasets_list", responses=DatasetSerializer(many=True))
    def get(self, request):
        page = self.paginate_queryset(self.get_queryset().order_by("name", "-version"))
        return self.get_paginated_response(DatasetSerializer(page, many=True).data)

    @extend_schema(
        request=DatasetCreateSerializer,
        responses={
            201: DatasetSerializer,
            400: OpenApiResponse(description="invalid rows, listed one by one; nothing stored"),
            403: OpenApiResponse(description="the plan's dataset limit is reached"),
        },
    )
    def post(self, request):
        data = DatasetCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        dataset = _create(self.tenant, data)
        record(
            request,
            "dataset.created",
            dataset,
            details={"name": dataset.name, "version": dataset.version, "rows": dataset.size},
        )
        return Response(DatasetSerializer(dataset).data, status=status.HTTP_201_CREATED)


class DatasetDetail(_DatasetView):
    http_method_names = ["get", "delete", "options"]

    def get(self, request, dataset_id: str):
        return Response(DatasetSerializer(self.get_dataset(dataset_id)).data)

    @extend_schema(responses={204: None})
    def delete(self, request, dataset_id: str):
        dataset = self.get_dataset(dataset_id)
        details = {"name": dataset.name, "version": dataset.version}
        datasets.delete_dataset(dataset)
        record(request, "dataset.deleted", tenant=self.tenant, details=details)
        return Response(status=status.HTTP_204_NO_CONTENT)


class JSONLinesRenderer(renderers.BaseRenderer):
    """Lets `Accept: application/x-ndjson` through negotiation; the view writes the JSONL."""

    media_type = "application/x-ndjson"
    format = "jsonl"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        # only errors come through here (a problem+json body): render them as JSON
        return renderers.JSONRenderer().render(data, accepted_media_type, renderer_context)


class DatasetDownload(_DatasetView):
    renderer_classes = [renderers.JSONRenderer, JSONLinesRenderer]

    @extend_schema(responses={(200, "application/x-ndjson"): OpenApiResponse(description="JSONL")})
    def get(self, request, dataset_id: str):
        dataset = self.get_dataset(dataset_id)
        body = to_jsonl(datasets.rows_of(dataset), f"{dataset.name}-v{dataset.version}")
        response = HttpResponse(body, content_type="application/x-ndjson; charset=utf-8")
        filename = f"{dataset.name}-v{dataset.version}.jsonl"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
