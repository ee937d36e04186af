"""A document's versions and its files (`/v1/knowledge-bases/{kb}/documents/{doc}/...`):
list and read versions, restore one, download the served file or any version's."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response

from knowledge.models import Document, DocumentVersion
from knowledge.restore import restore_recorded

from ..serializers.knowledge import DocumentSerializer, DocumentVersionSerializer
from .knowledge import _DocumentView


def _file(name: str, content_type: str, raw: bytes) -> HttpResponse:
    response = HttpResponse(bytes(raw), content_type=content_type or "application/octet-stream")
    safe = "".join(c for c in name if c.isprintable() and c not in '"\\') or "document"
    response["Content-Disposition"] = f'attachment; filename="{safe}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response


class _DocumentScoped(_DocumentView):
    def get_version(self, doc: Document, number: int) -> DocumentVersion:
        found = DocumentVersion.objects.filter(document=doc, number=number).first()
        if found is None:
            raise Http404("No such version of this document.")
        return found


class DocumentVersionList(_DocumentScoped):
    serializer_class = DocumentVersionSerializer

    @extend_schema(
        operation_id="knowledge_base_document_versions_list",
        responses=DocumentVersionSerializer(many=True),
    )
    def get(self, request, kb_id: str, doc_id: str):
        doc = self.get_doc(kb_id, doc_id)
        versions = DocumentVersion.objects.filter(document=doc).defer("raw", "text")
        page = self.paginate_queryset(versions.order_by("-number"))
        context = {"served": doc.version if doc.indexed_at else None}
        return self.get_paginated_response(
            DocumentVersionSerializer(page, many=True, context=context).data
        )


class DocumentVersionDetail(_DocumentScoped):
    serializer_class = DocumentVersionSerializer

    @extend_schema(operation_id="knowledge_base_document_version_retrieve")
    def get(self, request, kb_id: str, doc_id: str, number: int):
        doc = self.get_doc(kb_id, doc_id)
        context = {"served": doc.version if doc.indexed_at else None}
        return Response(
            DocumentVersionSerializer(self.get_version(doc, number), context=context).data
        )


class DocumentVersionRestore(_DocumentScoped):
    serializer_class = DocumentSerializer

    @extend_schema(
        operation_id="knowledge_base_document_version_restore",
        request=None,
        responses={
            202: DocumentSerializer,
            404: OpenApiResponse(description="no such document or version"),
        },
    )
    def post(self, request, kb_id: str, doc_id: str, number: int):
        """Serve version `number` again: its file becomes a new version, indexed like a
        replacement; the served version stays until it is ready."""
        doc = self.get_doc(kb_id, doc_id)
        self.get_version(doc, number)
        restore_recorded(request, doc, number)
        doc = self.get_doc(kb_id, doc_id)
        return Response(DocumentSerializer(doc).data, status=status.HTTP_202_ACCEPTED)


class DocumentFile(_DocumentScoped):
    @extend_schema(
        operation_id="knowledge_base_document_file",
        responses={(200, "application/octet-stream"): OpenApiTypes.BINARY},
    )
    def get(self, request, kb_id: str, doc_id: str):
        """The file of the served version (the one search cites), as uploaded."""
        doc = self.get_doc(kb_id, doc_id)
        raw = Document.objects.filter(pk=doc.pk).values_list("raw", flat=True).get()
        return _file(doc.name, doc.content_type, raw)


class DocumentVersionFile(_DocumentScoped):
    @extend_schema(
        operation_id="knowledge_base_document_version_file",
        responses={(200, "application/octet-stream"): OpenApiTypes.BINARY},
    )
    def get(self, request, kb_id: str, doc_id: str, number: int):
        """One version's file, as uploaded."""
        version = self.get_version(self.get_doc(kb_id, doc_id), number)
        return _file(version.name, version.content_type, version.raw)
