"""Knowledge bases and their documents (`/v1/knowledge-bases/...`)."""

from __future__ import annotations

from django.db.models import Count
from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import parsers, status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.response import Response

from knowledge import actions
from knowledge.ids import parse_doc_id, parse_kb_id
from knowledge.metadata import MetadataError, merge_metadata
from knowledge.models import Document, DocumentVersion, KnowledgeBase, WebSearchSettings
from tenants.audit import record

from ..errors import Conflict
from ..pagination import StrictLimitOffsetPagination
from ..parsers import BoundedJSONParser
from ..serializers.knowledge import (
    DocumentPatchSerializer,
    DocumentSerializer,
    DocumentUploadSerializer,
    KnowledgeBaseSerializer,
    WebSearchSerializer,
)
from .base import TenantScopedView


class LimitRefused(APIException):
    status_code = status.HTTP_403_FORBIDDEN
    default_code = "plan_limit"

    def __init__(self, detail: str, status_code: int = 403):
        super().__init__(detail)
        self.status_code = status_code


def _refuse(exc: Exception):
    if isinstance(exc, actions.WrongSignature):
        return UnsupportedMediaType(str(exc))
    if isinstance(exc, actions.LimitExceeded):
        return LimitRefused(str(exc), exc.status)
    if isinstance(exc, actions.DuplicateName):
        return Conflict(str(exc))
    return ValidationError({"file": [str(exc)]})


class UnsupportedMediaType(APIException):
    """The file's bytes are not the format it was sent as (its signature says otherwise)."""

    status_code = status.HTTP_415_UNSUPPORTED_MEDIA_TYPE
    default_code = "unsupported_media_type"
    problem_slug = "unsupported-media-type"


class DuplicateDocument(Conflict):
    problem_slug = "duplicate-document"


def on_duplicate(request, data: dict) -> str:
    """The upload's `on_duplicate` (body field, else query parameter, else "existing")."""
    chosen = data.get("on_duplicate") or request.query_params.get("on_duplicate") or "existing"
    if chosen not in actions.ON_DUPLICATE:
        raise ValidationError({"on_duplicate": [f"one of {', '.join(actions.ON_DUPLICATE)}"]})
    return chosen


class _Pages(StrictLimitOffsetPagination):
    default_limit = 50
    max_limit = 500


def _accept_upload(request, store, action: str) -> Response:
    """Validate the upload, `store(upload)` it (an action), answer 202 or a clear 4xx."""
    data = DocumentUploadSerializer(data=request.data)
    data.is_valid(raise_exception=True)
    if data.validated_data.get("url"):
        raise ValidationError({"url": ["a replacement is uploaded (file or content), not a url"]})
    try:
        stored = store(data.upload(), on_duplicate(request, data.validated_data))
    except (actions.LimitExceeded, actions.UnsupportedFormat) as exc:
        raise _refuse(exc) from exc
    except actions.DuplicateFile as exc:
        if on_duplicate(request, data.validated_data) == "refuse":
            raise DuplicateDocument(
                f"{exc}; send on_duplicate=allow to store another copy"
            ) from exc
        existing = DocumentSerializer(exc.existing).data
        return Response(
            existing, status=status.HTTP_200_OK, headers={"X-Duplicate-Of": existing["id"]}
        )
    doc = Document.objects.defer("raw", "text").get(
        pk=stored.document_id if isinstance(stored, DocumentVersion) else stored.pk
    )
    version = stored.number if isinstance(stored, DocumentVersion) else doc.version
    record(request, action, doc, details={"name": doc.name, "version": version})
    return Response(DocumentSerializer(doc).data, status=status.HTTP_202_ACCEPTED)


def _accept_url(request, kb: KnowledgeBase) -> Response:
    """A document to fetch from a URL: 202 once the URL passed the address guard."""
    data = DocumentUploadSerializer(data=request.data)
    data.is_valid(raise_exception=True)
    try:
        doc = actions.add_from_url(
            kb,
            data.validated_data["url"],
            data.validated_data.get("name", ""),
            metadata=data.validated_data.get("metadata"),
        )
    except (actions.LimitExceeded, actions.UnsupportedFormat) as exc:
        if isinstance(exc, actions.UnsupportedFormat):
            raise ValidationError({"url": [str(exc)]}) from exc
        raise _refuse(exc) from exc
    record(
        request,
        "document.created",
        doc,
        details={"name": doc.name, "version": 1, "source_url": doc.source_url},
    )
    return Response(DocumentSerializer(doc).data, status=status.HTTP_202_ACCEPTED)


class _KnowledgeView(TenantScopedView):
    pagination_class = _Pages

    def get_kb(self, kb_id: str) -> KnowledgeBase:
        pk = parse_kb_id(kb_id)
        kb = KnowledgeBase.objects.filter(tenant=self.tenant, pk=pk).first() if pk else None
        if kb is None:
            raise Http404("No such knowledge base.")
        return kb


class KnowledgeBaseList(_KnowledgeView):
    serializer_class = KnowledgeBaseSerializer

    def base_queryset(self):
        return KnowledgeBase.objects.annotate(document_count=Count("documents")).order_by("name")

    @extend_schema(
        operation_id="knowledge_bases_list", responses=KnowledgeBaseSerializer(many=True)
    )
    def get(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(KnowledgeBaseSerializer(page, many=True).data)

    @extend_schema(request=KnowledgeBaseSerializer, responses={201: KnowledgeBaseSerializer})
    def post(self, request):
        data = KnowledgeBaseSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            kb = actions.create_knowledge_base(
                self.tenant, data.validated_data["name"], data.validated_data.get("description", "")
            )
        except (actions.LimitExceeded, actions.DuplicateName) as exc:
            raise _refuse(exc) from exc
        record(request, "knowledge_base.created", kb, details={"name": kb.name})
        return Response(KnowledgeBaseSerializer(kb).data, status=status.HTTP_201_CREATED)


class KnowledgeBaseDetail(_KnowledgeView):
    serializer_class = KnowledgeBaseSerializer
    http_method_names = ["get", "delete", "options"]

    def base_queryset(self):
        return KnowledgeBase.objects.all()

    def get(self, request, kb_id: str):
        return Response(KnowledgeBaseSerializer(self.get_kb(kb_id)).data)

    @extend_schema(responses={204: None})
    def delete(self, request, kb_id: str):
        kb = self.get_kb(kb_id)
        actions.delete_knowledge_base(kb)
        record(request, "knowledge_base.deleted", kb, details={"name": kb.name})
        return Response(status=status.HTTP_204_NO_CONTENT)


UPLOAD_PARSERS = [parsers.MultiPartParser, parsers.FormParser, BoundedJSONParser]


class DocumentList(_KnowledgeView):
    serializer_class = DocumentSerializer
    parser_classes = UPLOAD_PARSERS

    def base_queryset(self):
        return Document.objects.defer("raw", "text").order_by("-created_at")

    @extend_schema(
        operation_id="knowledge_base_documents_list", responses=DocumentSerializer(many=True)
    )
    def get(self, request, kb_id: str):
        kb = self.get_kb(kb_id)
        page = self.paginate_queryset(self.get_queryset().filter(knowledge_base=kb))
        return self.get_paginated_response(DocumentSerializer(page, many=True).data)

    @extend_schema(
        request=DocumentUploadSerializer,
        responses={
            202: DocumentSerializer,
            200: OpenApiResponse(
                DocumentSerializer,
                description="on_duplicate=existing: the document that already has these bytes",
            ),
            400: OpenApiResponse(description="unsupported or empty file"),
            403: OpenApiResponse(description="the plan's document count is reached"),
            409: OpenApiResponse(description="on_duplicate=refuse: the file is already there"),
            413: OpenApiResponse(description="the document is over the plan's size limit"),
            415: OpenApiResponse(description="the file's content is not the type it was sent as"),
        },
    )
    def post(self, request, kb_id: str):
        kb = self.get_kb(kb_id)
        if request.data.get("url"):
            return _accept_url(request, kb)
        return _accept_upload(
            request,
            lambda upload, dup: actions.add_document(kb, upload, on_duplicate=dup),
            "document.created",
        )


class _DocumentView(_KnowledgeView):
    """One document of a knowledge base (`/v1/knowledge-bases/{kb}/documents/{doc}`)."""

    def base_queryset(self):
        return Document.objects.defer("raw", "text")

    def get_doc(self, kb_id: str, doc_id: str) -> Document:
        kb = self.get_kb(kb_id)
        pk = parse_doc_id(doc_id)
        doc = self.get_queryset().filter(knowledge_base=kb, pk=pk).first() if pk else None
        if doc is None:
            raise Http404("No such document.")
        return doc


class DocumentDetail(_DocumentView):
    serializer_class = DocumentSerializer
    parser_classes = UPLOAD_PARSERS
    http_method_names = ["get", "put", "patch", "delete", "options"]

    def get_object(self) -> Document:  # used by OPTIONS (DRF's metadata) for PUT
        return self.get_doc(self.kwargs["kb_id"], self.kwargs["doc_id"])

    def get(self, request, kb_id: str, doc_id: str):
        return Response(DocumentSerializer(self.get_doc(kb_id, doc_id)).data)

    @extend_schema(request=DocumentUploadSerializer, responses={202: DocumentSerializer})
    def put(self, request, kb_id: str, doc_id: str):
        doc = self.get_doc(kb_id, doc_id)
        return _accept_upload(
            request,
            lambda upload, dup: actions.replace_document(doc, upload),
            "document.replaced",
        )

    @extend_schema(request=DocumentPatchSerializer, responses={200: DocumentSerializer})
    def patch(self, request, kb_id: str, doc_id: str):
        doc = self.get_doc(kb_id, doc_id)
        data = DocumentPatchSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            merged = merge_metadata(doc.metadata, data.validated_data["metadata"])
        except MetadataError as exc:
            raise ValidationError({"metadata": [str(exc)]}) from exc
        doc = actions.set_metadata(doc, merged)
        record(request, "document.metadata_changed", doc, details={"keys": sorted(merged)})
        return Response(DocumentSerializer(doc).data)

    @extend_schema(responses={204: None})
    def delete(self, request, kb_id: str, doc_id: str):
        doc = self.get_doc(kb_id, doc_id)
        actions.delete_document(doc)
        record(request, "document.deleted", doc, details={"name": doc.name})
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebSearchView(TenantScopedView):
    """`GET`/`PUT`/`DELETE /v1/web-search`: the provider that grounds uncovered claims."""

    serializer_class = WebSearchSerializer
    http_method_names = ["get", "put", "delete", "options"]

    def base_queryset(self):
        return WebSearchSettings.objects.all()

    def _current(self) -> WebSearchSettings:
        found = self.get_queryset().first()
        if found is None:
            raise Http404("No web search provider is configured.")
        return found

    def get_object(self) -> WebSearchSettings:  # used by OPTIONS (DRF's metadata) for PUT
        return self._current()

    def get(self, request):
        return Response(WebSearchSerializer(self._current()).data)

    def put(self, request):
        current = self.get_queryset().first()
        data = WebSearchSerializer(current, data=request.data)
        data.is_valid(raise_exception=True)
        if current is None and "api_key" not in data.validated_data:
            raise ValidationError({"api_key": ["a new provider needs its API key."]})
        saved = actions.save_web_search(self.tenant, data.validated_data)
        details = {"provider": saved.provider, "new_key": "api_key" in data.validated_data}
        record(request, "web_search.changed", saved, details=details)
        return Response(WebSearchSerializer(saved).data)

    @extend_schema(responses={204: None})
    def delete(self, request):
        current = self._current()
        current.delete()
        record(request, "web_search.deleted", current, details={"provider": current.provider})
        return Response(status=status.HTTP_204_NO_CONTENT)
