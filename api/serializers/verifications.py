"""`POST /v1/verifications` and its feedback (`api/views/verifications.py`): request
validation. The job's representation (responses, webhooks, the gateway) is
`verification.serializers`: verification sits below the API and its webhooks send it too."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from engine import AUTO, MODE_NAMES, MessagesError, inputs_from_messages
from knowledge.metadata import MetadataError, clean_filter

from ..strict import StrictTypes
from .common import has_nul, refuse_unsafe_url

# every list a request may hold is capped (the body limit alone allows 100 000s of items)
MAX_MESSAGES = 1000
MAX_CONTENT_PARTS = 1000


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string"},
            {"type": "array", "items": {"type": "string"}},
        ],
        "description": "A list of passages, or one string (one passage).",
    }
)
class ContextField(serializers.Field):
    """A list of passages, or one string (one passage)."""

    default_error_messages = {
        "invalid": "must be a string or a list of strings.",
        "too_many": "has more than {limit} passages.",
        "item": "passage {index} must be a string.",
        "nul": "passage {index} contains a NUL (\\u0000) character.",
    }

    def to_internal_value(self, data: Any) -> list[str]:
        if isinstance(data, str):
            data = [data] if data.strip() else []
        if not isinstance(data, list):
            self.fail("invalid")
        limit = settings.TRUTHLENS["MAX_PASSAGES"]
        if len(data) > limit:
            self.fail("too_many", limit=limit)
        for index, item in enumerate(data):
            if not isinstance(item, str):
                self.fail("item", index=index)
            if "\x00" in item:
                self.fail("nul", index=index)
        return list(data)

    def to_representation(self, value: list[str]) -> list[str]:
        return value


class MessageSerializer(StrictTypes, serializers.Serializer):
    role = serializers.ChoiceField(
        choices=["system", "user", "assistant", "tool", "function", "developer"]
    )
    content = serializers.JSONField(allow_null=True, required=False)
    name = serializers.CharField(required=False, allow_blank=True)
    tool_call_id = serializers.CharField(required=False, allow_blank=True)

    def validate_content(self, value: Any) -> Any:
        if isinstance(value, list) and len(value) > MAX_CONTENT_PARTS:
            raise serializers.ValidationError(f"has more than {MAX_CONTENT_PARTS} parts.")
        if has_nul(value):
            raise serializers.ValidationError("must not contain NUL (\\u0000) characters.")
        return value


class SearchControlsSerializer(StrictTypes, serializers.Serializer):
    """A request's own search controls for an answer without context, within the policy's
    limits (a source it does not allow, more queries than it allows: 400)."""

    sources = serializers.ListField(
        child=serializers.ChoiceField(choices=["knowledge_base", "web"]),
        required=False,
        min_length=1,
        max_length=2,
        help_text="search only these sources (of those the policy allows)",
    )
    max_queries = serializers.IntegerField(
        required=False, min_value=1, max_value=50, help_text="per source; at most the policy's"
    )
    top_k = serializers.IntegerField(
        required=False, min_value=1, max_value=10, help_text="passages kept per claim (3)"
    )
    evidence_threshold = serializers.FloatField(
        required=False,
        min_value=-1,
        max_value=1,
        help_text="cosine from which a passage is evidence (0.35)",
    )
    metadata = serializers.JSONField(
        required=False,
        help_text='document metadata filter: {"key": value or [values]}; every key must match',
    )

    def validate_metadata(self, value):
        try:
            return clean_filter(value)
        except MetadataError as exc:
            raise serializers.ValidationError(str(exc)) from exc


class VerificationRequestSerializer(StrictTypes, serializers.Serializer):
    context = ContextField(required=False)
    knowledge_base = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=40,
        help_text="kb_... : check the answer against this knowledge base instead of a context",
    )
    passage_ids = serializers.ListField(
        child=serializers.CharField(max_length=64),
        required=False,
        allow_null=True,
        max_length=settings.TRUTHLENS["MAX_PASSAGES"],
    )
    query = serializers.CharField(required=False, allow_blank=True, default="", max_length=20_000)
    response = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    messages = MessageSerializer(
        many=True, required=False, allow_null=True, max_length=MAX_MESSAGES
    )
    model = serializers.CharField(required=False, allow_blank=True, default="", max_length=200)
    mode = serializers.ChoiceField(choices=[*MODE_NAMES, AUTO], default=AUTO)
    decision = serializers.CharField(required=False, allow_blank=True, allow_null=True, default="")
    threshold = serializers.FloatField(required=False, allow_null=True, min_value=0, max_value=1)
    callback_url = serializers.URLField(
        required=False, allow_blank=True, allow_null=True, default="", max_length=2000
    )
    metadata = serializers.DictField(required=False, default=dict)
    search = SearchControlsSerializer(required=False)
    wait = serializers.FloatField(required=False, default=0, min_value=0, max_value=30)

    def validate_callback_url(self, value: str | None) -> str:
        if not value:
            return ""
        refuse_unsafe_url(value)
        return value

    def validate_metadata(self, value: dict) -> dict:
        if has_nul(value):
            raise serializers.ValidationError("must not contain NUL (\\u0000) characters.")
        if len(str(value)) > 10_000:
            raise serializers.ValidationError("must be at most 10 000 characters when serialised.")
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # NUL (which Postgres text refuses) never reaches here: DRF's CharField refuses it,
        # and ContextField, validate_content and validate_metadata check the rest.
        messages = attrs.get("messages")
        if messages:
            if attrs.get("response") or attrs.get("context"):
                raise serializers.ValidationError(
                    {"messages": "send either messages or context/response, not both."}
                )
            try:
                item = inputs_from_messages(messages)
            except MessagesError as exc:
                raise serializers.ValidationError({"messages": str(exc)}) from exc
            attrs["context"] = list(item.context)
            attrs["query"] = item.query or ""
            attrs["response"] = item.response
        else:
            if not attrs.get("response", "").strip():
                raise serializers.ValidationError({"response": "This field is required."})
            attrs.setdefault("context", [])
        if attrs.get("knowledge_base") and attrs["context"]:
            raise serializers.ValidationError(
                {"knowledge_base": "send either a context or a knowledge_base, not both."}
            )
        ids = attrs.get("passage_ids")
        if ids is not None and len(ids) != len(attrs["context"]):
            raise serializers.ValidationError(
                {"passage_ids": "must have one id per context passage."}
            )
        return attrs


class FeedbackRequestSerializer(StrictTypes, serializers.Serializer):
    outcome = serializers.ChoiceField(choices=["correct", "hallucinated"])
    comment = serializers.CharField(required=False, allow_blank=True, default="", max_length=5000)
