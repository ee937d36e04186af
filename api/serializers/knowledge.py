"""Knowledge bases, their documents, versions, batch uploads and web search settings
(`api/views/knowledge.py`, `knowledge_versions.py`, `knowledge_ingest.py`)."""

from __future__ import annotations

import json

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from knowledge import actions
from knowledge.metadata import MetadataError, clean_metadata
from knowledge.models import Document, DocumentVersion, KnowledgeBase, WebSearchSettings
from security.urlguard import UnsafeUrl, check_url

from ..strict import StrictTypes


class KnowledgeBaseSerializer(StrictTypes, serializers.ModelSerializer):
    id = serializers.CharField(source="public_id", read_only=True)
    documents = serializers.SerializerMethodField()

    class Meta:
        model = KnowledgeBase
        fields = ["id", "name", "description", "documents", "created_at"]
        read_only_fields = ["id", "documents", "created_at"]

    def get_documents(self, kb: KnowledgeBase) -> int:
        # annotated by the views that list bases (one query, not one per base)
        count = getattr(kb, "document_count", None)
        return kb.documents.count() if count is None else count


class DocumentSerializer(serializers.ModelSerializer):
    id = serializers.CharField(source="public_id", read_only=True)
    knowledge_base = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()
    warnings = serializers.ListField(
        child=serializers.CharField(), read_only=True, help_text="said when it was indexed"
    )
    metadata = serializers.DictField(read_only=True, help_text="the tenant's key/value pairs")

    class Meta:
        model = Document
        fields = [
            "id", "knowledge_base", "name", "source_url", "content_type", "size_bytes", "sha256",
            "version",
            "status", "error", "language", "warnings", "metadata", "passages_total",
            "passages_done", "progress",
            "replacement", "created_at", "updated_at", "indexed_at",
        ]  # fmt: skip
        read_only_fields = fields

    replacement = serializers.SerializerMethodField()

    @extend_schema_field(
        {
            "type": "object",
            "nullable": True,
            "properties": {
                "version": {"type": "integer"},
                "status": {"type": "string"},
                "error": {"type": "string"},
                "progress": {"type": "number"},
                "name": {"type": "string"},
            },
        }
    )
    def get_replacement(self, doc: Document) -> dict | None:
        """The newest upload above the served version (queued, indexing, failed or
        superseded): the served version stays until it is ready; null when none."""
        if doc.indexed_at is None:
            return None
        newer = (
            DocumentVersion.objects.filter(document=doc, number__gt=doc.version)
            .only("number", "status", "error", "name", "passages_done", "passages_total")
            .order_by("-number")
            .first()
        )
        if newer is None:
            return None
        total = newer.passages_total
        return {
            "version": newer.number,
            "status": newer.status,
            "error": newer.error,
            "progress": round(newer.passages_done / total, 3) if total else 0.0,
            "name": newer.name,
        }

    def get_knowledge_base(self, doc: Document) -> str:
        return f"kb_{doc.knowledge_base_id.hex}"

    def get_progress(self, doc: Document) -> float:
        """0..1: passages embedded so far (1 once ready)."""
        if doc.status == "ready":
            return 1.0
        return round(doc.passages_done / doc.passages_total, 3) if doc.passages_total else 0.0


class DocumentUploadSerializer(StrictTypes, serializers.Serializer):
    """Multipart `file` (its name and type), JSON `name` + `content` (text formats), or
    `url` (fetched by the index worker; a document upload only, not a replacement)."""

    file = serializers.FileField(required=False)
    url = serializers.URLField(
        required=False,
        max_length=2000,
        help_text="fetch the document from this http(s) URL (checked against internal "
        "addresses when saved and when fetched; redirects are not followed)",
    )
    name = serializers.CharField(required=False, max_length=255)
    content = serializers.CharField(required=False, trim_whitespace=False)
    content_type = serializers.CharField(required=False, max_length=100, default="text/plain")
    metadata = serializers.JSONField(
        required=False,
        help_text="key/value pairs (strings, numbers, booleans); a JSON string in multipart",
    )

    def validate_metadata(self, value):
        return _metadata(value)

    on_duplicate = serializers.ChoiceField(
        choices=actions.ON_DUPLICATE,
        required=False,
        help_text="a file whose bytes (SHA-256) a document of this knowledge base already has: "
        "`existing` (default) answers 200 with that document, `refuse` answers 409, `allow` "
        "stores another copy; also a query parameter",
    )

    def validate(self, attrs):
        if attrs.get("url"):
            if attrs.get("file") is not None or "content" in attrs:
                raise ValidationError({"url": "send a url, or a file, or content: one of them."})
            return attrs
        if attrs.get("file") is None and "content" not in attrs:
            raise ValidationError({"file": "upload a file, or send name and content."})
        if attrs.get("file") is None and not attrs.get("name"):
            raise ValidationError({"name": "a document sent as content needs a name."})
        return attrs

    def upload(self) -> actions.Upload:
        data = self.validated_data
        f = data.get("file")
        if f is not None:
            return actions.Upload(
                name=data.get("name") or f.name or "document",
                content_type=f.content_type or "",
                raw=f.read(),
                metadata=data.get("metadata"),
            )
        return actions.Upload(
            data["name"], data["content_type"], data["content"].encode(), data.get("metadata")
        )


def _metadata(value) -> dict:
    if isinstance(value, str):  # a multipart form field
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise ValidationError("metadata must be a JSON object.") from exc
    try:
        return clean_metadata(value)
    except MetadataError as exc:
        raise ValidationError(str(exc)) from exc


class DocumentPatchSerializer(StrictTypes, serializers.Serializer):
    metadata = serializers.JSONField(
        help_text="merged into the document's metadata; a null value removes its key"
    )


class WebSearchSerializer(StrictTypes, serializers.ModelSerializer):
    """The tenant's web search provider; the key is write-only (never shown again)."""

    api_key = serializers.CharField(write_only=True, required=False, allow_blank=False)
    has_key = serializers.SerializerMethodField()

    class Meta:
        model = WebSearchSettings
        fields = [
            "provider", "api_base", "api_key", "has_key", "price_per_query_usd",
            "timeout_seconds", "max_results",
        ]  # fmt: skip
        extra_kwargs = {
            "timeout_seconds": {"min_value": 0.5, "max_value": 60},
            "max_results": {"min_value": 1, "max_value": 20},
            "price_per_query_usd": {"min_value": 0},
        }

    def get_has_key(self, obj: WebSearchSettings) -> bool:
        return bool(obj.api_key_encrypted)

    def validate_api_base(self, value: str) -> str:
        if value:
            try:
                check_url(value, settings.TRUTHLENS["WEBHOOK_ALLOWED_HOSTS"])
            except UnsafeUrl as exc:
                raise ValidationError(str(exc)) from exc
        return value


class DocumentVersionSerializer(serializers.ModelSerializer):
    version = serializers.IntegerField(source="number", read_only=True)
    served = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()

    class Meta:
        model = DocumentVersion
        fields = [
            "version", "served", "status", "error", "name", "content_type", "size_bytes",
            "sha256", "language", "warnings", "passages_total", "passages_done", "progress",
            "restored_from", "created_at", "indexed_at",
        ]  # fmt: skip
        read_only_fields = fields

    def get_served(self, version: DocumentVersion) -> bool:
        """True for the version search and downloads serve now."""
        served = self.context.get("served")
        return served is not None and version.number == served

    def get_progress(self, version: DocumentVersion) -> float:
        if version.status == "ready":
            return 1.0
        total = version.passages_total
        return round(version.passages_done / total, 3) if total else 0.0


class BatchUploadSerializer(serializers.Serializer):
    files = serializers.ListField(
        child=serializers.FileField(),
        help_text=f"several multipart parts named `files` (at most {actions.MAX_BATCH})",
    )
    on_duplicate = serializers.ChoiceField(choices=actions.ON_DUPLICATE, required=False)


class BatchItemSerializer(serializers.Serializer):
    name = serializers.CharField()
    status = serializers.IntegerField(help_text="what a single upload of this file answers")
    document = DocumentSerializer(required=False)
    error = serializers.CharField(required=False)


class BatchResultSerializer(serializers.Serializer):
    accepted = serializers.IntegerField()
    refused = serializers.IntegerField()
    results = BatchItemSerializer(many=True)
