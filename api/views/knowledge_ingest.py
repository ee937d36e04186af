"""Batch upload: several files in one request (`POST …/documents/batch`)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import parsers, status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from knowledge import actions
from tenants.audit import record

from ..serializers.knowledge import (
    BatchResultSerializer,
    BatchUploadSerializer,
    DocumentSerializer,
)
from .knowledge import _KnowledgeView, _refuse, on_duplicate


class DocumentBatch(_KnowledgeView):
    """Each file is stored (and queued) on its own: one refused file (a wrong type, over the
    size or document limit) does not refuse the others; each result says what happened."""

    parser_classes = [parsers.MultiPartParser]
    serializer_class = BatchUploadSerializer

    def base_queryset(self):
        from knowledge.models import KnowledgeBase

        return KnowledgeBase.objects.all()

    @extend_schema(
        operation_id="knowledge_base_documents_batch",
        request={"multipart/form-data": BatchUploadSerializer},
        responses={200: BatchResultSerializer},
    )
    def post(self, request, kb_id: str):
        kb = self.get_kb(kb_id)
        files = request.FILES.getlist("files")
        if not files:
            raise ValidationError({"files": ["send one or more multipart parts named files"]})
        if len(files) > actions.MAX_BATCH:
            raise ValidationError({"files": [f"at most {actions.MAX_BATCH} files per request"]})
        chosen = on_duplicate(request, request.data)
        results = []
        for f in files:
            upload = actions.Upload(f.name or "document", f.content_type or "", f.read())
            try:
                doc = actions.add_document(kb, upload, on_duplicate=chosen)
            except actions.DuplicateFile as exc:
                if chosen == "refuse":
                    results.append({"name": upload.name, "status": 409, "error": str(exc)})
                else:
                    results.append(
                        {
                            "name": upload.name,
                            "status": 200,
                            "document": DocumentSerializer(exc.existing).data,
                        }
                    )
                continue
            except (actions.LimitExceeded, actions.UnsupportedFormat) as exc:
                refused = _refuse(exc)
                results.append(
                    {"name": upload.name, "status": refused.status_code, "error": str(exc)}
                )
                continue
            record(request, "document.created", doc, details={"name": doc.name, "version": 1})
            results.append(
                {"name": upload.name, "status": 202, "document": DocumentSerializer(doc).data}
            )
        accepted = sum(1 for r in results if r["status"] in (200, 202))
        body = {"accepted": accepted, "refused": len(results) - accepted, "results": results}
        return Response(body, status=status.HTTP_200_OK)
