"""`/v1/verifications`: create (async or wait), read, list, feedback."""

from __future__ import annotations

import datetime as dt

import django_filters
from django import forms
from django.http import Http404
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from engine import search_errors
from knowledge.ids import parse_kb_id
from knowledge.models import KnowledgeBase
from tenants.llm_providers import provider_for, served_models
from verification.actions.create import IdempotencyConflict, NewVerification, create_verification
from verification.actions.feedback import record_feedback
from verification.job_details import jobs_with_details, wait_until_final
from verification.models import VerificationJob
from verification.partitions import add_months, month_floor
from verification.serializers import (
    VerificationSerializer,
    accepted_representation,
    verification_headers,
)
from verification.tenant_config import not_served, policy_for, request_errors

from ..errors import Conflict
from ..pagination import StrictCursorPagination
from ..serializers.verifications import FeedbackRequestSerializer, VerificationRequestSerializer
from .base import TenantScopedView


class UtcDateTimeFilter(django_filters.IsoDateTimeFilter):
    """ISO 8601 bound converted to UTC first: Postgres refuses offsets beyond ±15:59 that
    Python accepts, which would otherwise surface as a 500."""

    def filter(self, qs, value):
        if value is not None:
            value = value.astimezone(dt.UTC)
        return super().filter(qs, value)


@extend_schema_field(OpenApiTypes.BOOL)
class StrictBooleanFilter(django_filters.TypedChoiceFilter):
    """`true` or `false`; BooleanFilter read any other value as "no filter", this is a 400."""

    def __init__(self, **kwargs):
        choices = [("true", "true"), ("false", "false")]
        super().__init__(choices=choices, coerce=lambda value: value == "true", **kwargs)


class _FilterForm(forms.Form):
    """`created_after=` (empty) filtered nothing; a typed filter's empty value is a 400."""

    TYPED = ("status", "detected", "created_after", "created_before")

    def clean(self):
        for name in self.TYPED:
            if self.data.get(name) == "":
                self.add_error(name, "must not be empty.")
        return super().clean()


class VerificationFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(
        choices=[(s, s) for s in ("queued", "running", "completed", "failed")]
    )
    # keys of the job's plan (JSON key lookups: `verification/models/plan.py`)
    mode = django_filters.CharFilter(field_name="plan__mode")
    query_type = django_filters.CharFilter(field_name="plan__query_type")
    decision = django_filters.CharFilter(field_name="plan__decision")
    detected = StrictBooleanFilter()
    created_after = UtcDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_before = UtcDateTimeFilter(field_name="created_at", lookup_expr="lt")

    class Meta:
        model = VerificationJob
        fields = ["status", "detected"]
        form = _FilterForm


class NewestFirst(StrictCursorPagination):
    ordering = "-created_at"
    page_size = 50
    page_size_query_param = "limit"
    max_page_size = 200


def _job_response(job: VerificationJob, code: int, **headers: str) -> Response:
    """`job` must come from `jobs_with_details()`."""
    response = Response(VerificationSerializer(job).data, status=code)
    for name, value in {**verification_headers(job), **headers}.items():
        response[name] = value
    return response


#: columns of a job the list's representation never reads (the request, the raw detection):
#: left unread by the list, the largest of a job's row. Not its plan: the list shows its
#: query type, decision and mode.
UNLISTED = (
    "context",
    "passage_ids",
    "query",
    "response",
    "messages",
    "search",
    "detection",
    "callback_url",
    "request_hash",
    "idempotency_key",
)


class VerificationListCreate(TenantScopedView):
    serializer_class = VerificationSerializer
    filterset_class = VerificationFilter
    pagination_class = NewestFirst

    def base_queryset(self):
        return jobs_with_details()

    @extend_schema(
        request=VerificationRequestSerializer,
        parameters=[
            OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER, required=False)
        ],
        responses={
            200: VerificationSerializer,
            202: VerificationSerializer,
            400: OpenApiResponse(description="problem+json with field errors"),
        },
    )
    def post(self, request):
        data = VerificationRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        _check_against_policy(self.tenant, v)
        knowledge_base = _knowledge_base(self.tenant, v.get("knowledge_base", ""))
        key = request.headers.get("Idempotency-Key") or None
        if key is not None and len(key) > 255:
            raise ValidationError({"Idempotency-Key": ["must be at most 255 characters."]})
        try:
            job, created = create_verification(
                self.tenant,
                NewVerification(
                    context=v["context"],
                    response=v["response"],
                    query=v.get("query", ""),
                    passage_ids=v.get("passage_ids"),
                    messages=v.get("messages"),
                    model=v.get("model", ""),
                    mode=v["mode"],
                    decision=v.get("decision") or "",
                    threshold=v.get("threshold"),
                    callback_url=v.get("callback_url") or "",
                    metadata=v.get("metadata") or {},
                    knowledge_base_id=knowledge_base.pk if knowledge_base else None,
                    search=v.get("search") or {},
                    interactive=bool(v["wait"]),
                ),
                api_key=request.auth,
                idempotency_key=key,
            )
        except IdempotencyConflict as exc:
            raise Conflict("This Idempotency-Key was used with a different request body.") from exc
        extra = {"Location": f"/v1/verifications/{job.public_id}"}
        if created and not v["wait"]:
            # the lean path: the job was just written, nothing has run it yet (no read back)
            response = Response(accepted_representation(job), status=status.HTTP_202_ACCEPTED)
            for name, value in {**verification_headers(job), **extra}.items():
                response[name] = value
            return response
        if v["wait"] and not job.is_final:
            wait_until_final(job, v["wait"])
        job = jobs_with_details().get(pk=job.pk)
        code = status.HTTP_200_OK if job.is_final else status.HTTP_202_ACCEPTED
        if not created:
            extra["Idempotent-Replayed"] = "true"
        return _job_response(job, code, **extra)

    @extend_schema(responses=VerificationSerializer(many=True))
    def get(self, request):
        queryset = self.filter_queryset(self.get_queryset()).defer(*UNLISTED)
        page = None
        if not request.query_params.get(self.paginator.cursor_query_param):
            # The first page is nearly always in the last two months: asked for them first,
            # Postgres plans and reads only their partitions. Unless there is more than a
            # page there (so the page and its `next` are right), ask again without the bound.
            # Later pages follow a cursor (a time bound already).
            since = add_months(month_floor(timezone.now()), -1)
            recent = queryset.filter(
                created_at__gte=dt.datetime(since.year, since.month, 1, tzinfo=dt.UTC)
            )
            page = self.paginate_queryset(recent)
            if not self.paginator.has_next:
                page = None
        if page is None:
            page = self.paginate_queryset(queryset)
        return self.get_paginated_response(VerificationSerializer(page, many=True).data)


def _knowledge_base(tenant, name: str) -> KnowledgeBase | None:
    """The tenant's knowledge base named by the request (another tenant's is unknown)."""
    if not name:
        return None
    kb = KnowledgeBase.objects.filter(tenant=tenant, pk=parse_kb_id(name)).first()
    if kb is None:
        raise ValidationError({"knowledge_base": [f"no knowledge base {name!r}."]})
    return kb


def _check_against_policy(tenant, v: dict) -> None:
    policy = policy_for(tenant)
    # the cached tenant's default_model (tenants.auth_cache), as has_llm() reads it
    errors = request_errors(policy, v["mode"], v.get("decision"), llm=bool(tenant.default_model))
    errors |= search_errors(policy, v.get("search") or {})
    model = v.get("model") or ""
    if model and provider_for(tenant.pk, model) is None:
        # The model refines the answer; only the tenant's providers are ever called.
        errors["model"] = [
            f"{not_served(model)} (served: {', '.join(served_models(tenant.pk)) or 'none'})."
        ]
    if errors:
        raise ValidationError(errors)


class VerificationDetail(TenantScopedView):
    serializer_class = VerificationSerializer

    def base_queryset(self):
        return jobs_with_details()

    def get_job(self, public_id: str) -> VerificationJob:
        job_id = VerificationJob.parse_public_id(public_id)
        job = self.get_queryset().filter(pk=job_id).first() if job_id else None
        if job is None:  # missing and not-yours answer the same
            raise Http404
        return job

    def get(self, request, public_id: str):
        return _job_response(self.get_job(public_id), status.HTTP_200_OK)


class VerificationFeedback(VerificationDetail):
    http_method_names = ["post", "options"]

    def base_queryset(self):  # feedback does not show the job's spans or usage
        return VerificationJob.objects.all()

    @extend_schema(request=FeedbackRequestSerializer, responses={201: None})
    def post(self, request, public_id: str):
        job = self.get_job(public_id)
        data = FeedbackRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        feedback = record_feedback(
            job, self.tenant, data.validated_data["outcome"], data.validated_data["comment"]
        )
        return Response(
            {"id": feedback.pk, "verification": job.public_id, "outcome": feedback.outcome},
            status=status.HTTP_201_CREATED,
        )
