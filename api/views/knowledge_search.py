"""Looking inside a knowledge base: the passages a claim would get
(`POST /v1/knowledge-bases/{kb}/search`), and a document's extracted text and passages."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response

from knowledge.metadata import matching_documents
from knowledge.models import Document, Passage
from knowledge.retrieval import search

from ..serializers.knowledge_search import (
    DocumentTextSerializer,
    PassageSerializer,
    SearchRequestSerializer,
    SearchResultSerializer,
)
from .knowledge import DocumentDetail, _KnowledgeView, _Pages


class KnowledgeBaseSearch(_KnowledgeView):
    """What retrieval gives a claim: the passages in rank order (full-text candidates
    re-ranked with the encoder, as a verification gets them) with their similarity."""

    serializer_class = SearchRequestSerializer

    def base_queryset(self):
        return Document.objects.all()

    @extend_schema(
        request=SearchRequestSerializer,
        responses={200: SearchResultSerializer, 404: OpenApiResponse(description="no such base")},
    )
    def post(self, request, kb_id: str):
        kb = self.get_kb(kb_id)
        data = SearchRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        documents = matching_documents(self.tenant.pk, [kb.pk], v["metadata"])
        hits = search(self.tenant.pk, [kb.pk], v["query"], k=v["top_k"], documents=documents)
        threshold = v["evidence_threshold"]
        return Response(
            {
                "query": v["query"],
                "evidence_threshold": threshold,
                "passages": [
                    {
                        "rank": n,
                        "passage": hit.passage_id,
                        "document": f"doc_{hit.document_id.hex}",
                        "document_name": hit.document_name,
                        "start": hit.start,
                        "end": hit.end,
                        "text": hit.text,
                        "similarity": round(hit.similarity, 4),
                        "evidence": hit.similarity >= threshold,
                    }
                    for n, hit in enumerate(hits, 1)
                ],
            }
        )


class DocumentText(DocumentDetail):
    http_method_names = ["get", "options"]

    def base_queryset(self):
        return Document.objects.defer("raw")

    @extend_schema(responses=DocumentTextSerializer)
    def get(self, request, kb_id: str, doc_id: str):
        doc = self.get_doc(kb_id, doc_id)
        return Response(
            {
                "id": doc.public_id,
                "version": doc.version,
                "language": doc.language,
                "text": doc.text,
            }
        )


class DocumentPassages(DocumentDetail):
    http_method_names = ["get", "options"]
    pagination_class = _Pages

    @extend_schema(responses=PassageSerializer(many=True))
    def get(self, request, kb_id: str, doc_id: str):
        doc = self.get_doc(kb_id, doc_id)
        passages = Passage.objects.filter(tenant=self.tenant, document=doc).order_by("position")
        page = self.paginate_queryset(passages.only(*PassageSerializer.Meta.fields))
        return self.get_paginated_response(PassageSerializer(page, many=True).data)
