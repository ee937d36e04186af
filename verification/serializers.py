"""The public representation of a verification, shared by the API and webhooks."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from engine import headers

from .models import DetectedSpan, VerificationJob


def _unbilled_usage(job: VerificationJob) -> dict[str, Any]:
    """The usage of a job that has no usage row yet: its detector tokens, nothing billed."""
    return {
        "detector_tokens": job.detector_tokens,
        "llm_calls": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "cost_usd": 0.0,
        "own_key_cost_usd": 0.0,
    }


class DocumentLocationSerializer(serializers.Serializer):
    """Where retrieved evidence sits in the tenant's own document (offsets in its text)."""

    knowledge_base = serializers.CharField()
    document = serializers.CharField()
    document_name = serializers.CharField()
    version = serializers.IntegerField(
        required=False, help_text="the document version the evidence was indexed from"
    )
    start = serializers.IntegerField()
    end = serializers.IntegerField()
    page = serializers.IntegerField(required=False, help_text="PDF page (1-based) of the evidence")
    slide = serializers.IntegerField(required=False, help_text="PPTX slide (1-based)")
    row = serializers.IntegerField(required=False, help_text="CSV row (1-based, the header is 1)")
    json_path = serializers.CharField(required=False, help_text="JSON top-level key or item")
    headings = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="Markdown or HTML heading path above it, outermost first",
    )


class EvidenceSerializer(serializers.Serializer):
    passage = serializers.IntegerField(allow_null=True)
    start = serializers.IntegerField(allow_null=True)
    end = serializers.IntegerField(allow_null=True)
    text = serializers.CharField()
    document = DocumentLocationSerializer(required=False)
    url = serializers.CharField(required=False)


def evidence_place(passage_location: dict, offset: int) -> dict:
    """The location (page, slide, heading path …) of `offset` in a passage (`Passage.location`)."""
    within = passage_location.get("within")
    if not within:
        return {k: v for k, v in passage_location.items() if not k.endswith("_end")}
    found: dict = {}
    for start, loc in within:
        if start <= offset:
            found = loc
    return dict(found)


class SpanSerializer(serializers.ModelSerializer):
    evidence = serializers.CharField(read_only=True)
    evidence_location = serializers.SerializerMethodField()

    class Meta:
        model = DetectedSpan
        fields = [
            "start",
            "end",
            "text",
            "confidence",
            "label",
            "reason",
            "evidence",
            "evidence_location",
        ]

    @extend_schema_field(EvidenceSerializer(allow_null=True))
    def get_evidence_location(self, span: DetectedSpan) -> dict[str, Any] | None:
        if span.evidence_passage is None:
            return None
        location: dict[str, Any] = {
            "passage": span.evidence_passage,
            "start": span.evidence_start,
            "end": span.evidence_end,
            "text": span.evidence,
        }
        refs = (self.context.get("grounding") or {}).get("passages") or []
        if 0 <= span.evidence_passage < len(refs):
            ref = refs[span.evidence_passage]
            if ref.get("kind") == "passage":
                offset = ref["start"]
                location["document"] = {
                    "knowledge_base": ref["knowledge_base"],
                    "document": ref["document"],
                    "document_name": ref["document_name"],
                    "start": offset + (span.evidence_start or 0),
                    "end": offset + (span.evidence_end or 0),
                }
                if "document_version" in ref:
                    location["document"]["version"] = ref["document_version"]
                location["document"].update(
                    evidence_place(ref.get("location") or {}, span.evidence_start or 0)
                )
            elif ref.get("kind") == "web":
                location["url"] = ref["url"]
        return location


class UsageSerializer(serializers.Serializer):
    detector_tokens = serializers.IntegerField()
    llm_calls = serializers.IntegerField()
    prompt_tokens = serializers.IntegerField()
    completion_tokens = serializers.IntegerField()
    cost_usd = serializers.FloatField(help_text="what the job's provider calls cost, all payers")
    own_key_cost_usd = serializers.FloatField(
        help_text="the part paid by the tenant through its own keys: reported, never billed"
    )


class VerificationSerializer(serializers.ModelSerializer):
    """Read-only view of a job, in the shape of docs/api.md "The verification object"."""

    id = serializers.CharField(source="public_id")
    spans = serializers.SerializerMethodField()
    usage = serializers.SerializerMethodField()
    verification_status = serializers.CharField()
    diagnostics = serializers.ListField(
        child=serializers.CharField(),
        help_text="internal notes for operators (fallbacks, failed or unusable LLM calls); "
        "`warning` holds only the policy's text for the end user",
    )
    metadata = serializers.JSONField()
    # keys of the job's plan (`verification/models/plan.py`), not columns of their own
    query_type = serializers.CharField(read_only=True)
    query_type_confidence = serializers.FloatField(read_only=True, allow_null=True)
    decision = serializers.CharField(read_only=True)
    mode = serializers.CharField(read_only=True)
    mode_source = serializers.CharField(read_only=True)
    score_calibration = serializers.SerializerMethodField(
        help_text="whether `score` went through a calibration fitted from your labels, "
        'and from which dataset version: {"calibrated": true, "method": "isotonic", '
        '"dataset": "support", "dataset_version": 3}'
    )

    class Meta:
        model = VerificationJob
        fields = [
            "id",
            "status",
            "verification_status",
            "reason",
            "query_type",
            "query_type_confidence",
            "decision",
            "mode",
            "mode_source",
            "score",
            "score_calibration",
            "model_score",
            "final_score",
            "threshold",
            "detected",
            "verdict",
            "risk_level",
            "spans",
            "final_response",
            "iterations",
            "warning",
            "diagnostics",
            "coverage",
            "citations",
            "cascade",
            "grounding",
            "detector",
            "usage",
            "latency_ms",
            "metadata",
            "error_code",
            "error_message",
            "created_at",
            "completed_at",
        ]
        read_only_fields = fields

    @cached_property
    def _plan(self) -> list[tuple[str, str | None, Any]] | None:
        """(name, the job's attribute or None for a method field, to_representation) of each
        field, for `to_representation`; None if a field is of another kind."""
        plan: list[tuple[str, str | None, Any]] = []
        for field in self._readable_fields:
            if field.source == "*":
                plan.append((field.field_name, None, field.to_representation))
            elif len(field.source_attrs) == 1:
                plan.append((field.field_name, field.source_attrs[0], field.to_representation))
            else:
                return None
        return plan

    def to_representation(self, instance: VerificationJob) -> dict[str, Any]:
        """DRF's loop without its per-field indirections (a third of a 50-job page's
        serializing): every field reads one attribute of the job or is a method field. The
        same dict; a job DRF would treat otherwise (an attribute missing) goes through DRF."""
        plan = self._plan
        if plan is None:
            return super().to_representation(instance)
        ret: dict[str, Any] = {}
        try:
            for name, attribute, represent in plan:
                if attribute is None:
                    ret[name] = represent(instance)
                else:
                    value = getattr(instance, attribute)
                    ret[name] = None if value is None else represent(value)
        except (AttributeError, KeyError):
            return super().to_representation(instance)
        return ret

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_score_calibration(self, job: VerificationJob) -> dict[str, Any]:
        return job.score_calibration or {"calibrated": False}

    @extend_schema_field(SpanSerializer(many=True))
    def get_spans(self, job: VerificationJob) -> list[dict[str, Any]]:
        spans = [s for s in job.spans.all() if s.iteration == 0]
        if not spans:  # most jobs: no span serializer to build (its fields are made per call)
            return []
        return SpanSerializer(spans, many=True, context={"grounding": job.grounding}).data

    @extend_schema_field(UsageSerializer)
    def get_usage(self, job: VerificationJob) -> dict[str, Any]:
        usage = getattr(job, "usage", None) if job.is_final else None
        if usage is None:
            return _unbilled_usage(job)
        return {
            "detector_tokens": usage.detector_tokens,
            "llm_calls": usage.llm_calls,
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "cost_usd": float(usage.provider_cost_usd + usage.tenant_provider_cost_usd),
            "own_key_cost_usd": float(usage.tenant_provider_cost_usd),
        }


def verification_headers(job: VerificationJob) -> dict[str, str]:
    """The `X-TruthLens-*` headers of docs/api.md "The verification object" for a job in any state."""
    return {
        **headers(
            enabled=job.enabled,
            mode=job.mode or job.requested_mode,
            score=job.score,
            detected=job.detected,
            iterations=job.iterations,
            latency_ms=(job.latency_ms or {}).get("total"),
        ),
        "X-TruthLens-Status": job.status,
    }


_DATETIME = serializers.DateTimeField()


def accepted_representation(job: VerificationJob) -> dict[str, Any]:
    """`VerificationSerializer(job).data` for a job just created and not yet started,
    built from the in-memory job: no spans, no usage row, nothing to read back.

    The 202 of `POST /v1/verifications` keeps the whole documented shape (docs/api.md "The verification
    object", the SDK's model) at a fraction of the serializer's cost; a test checks the two agree.
    """
    return {
        "id": job.public_id,
        "status": job.status,
        "verification_status": job.verification_status,
        "reason": job.reason,
        "query_type": job.query_type,
        "query_type_confidence": job.query_type_confidence,
        "decision": job.decision,
        "mode": job.mode,
        "mode_source": job.mode_source,
        "score": job.score,
        "score_calibration": job.score_calibration or {"calibrated": False},
        "model_score": job.model_score,
        "final_score": job.final_score,
        "threshold": job.threshold,
        "detected": job.detected,
        "verdict": job.verdict,
        "risk_level": job.risk_level,
        "spans": [],
        "final_response": job.final_response,
        "iterations": job.iterations,
        "warning": job.warning,
        "diagnostics": job.diagnostics,
        "coverage": job.coverage,
        "citations": job.citations,
        "cascade": job.cascade,
        "grounding": job.grounding,
        "detector": job.detector,
        "usage": _unbilled_usage(job),
        "latency_ms": job.latency_ms,
        "metadata": job.metadata,
        "error_code": job.error_code,
        "error_message": job.error_message,
        "created_at": _DATETIME.to_representation(job.created_at),
        "completed_at": None,
    }
