"""Typed request and response bodies, field for field the components of the OpenAPI schema
(`/v1/openapi.json`). `tests/sdk/test_schema_drift.py` fails when the two drift apart.

Each model names its schema component in `__component__`. Unknown fields in a response are
ignored, so a newer server never breaks an older client.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Body(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    __component__: ClassVar[str] = ""


# --- verifications ----------------------------------------------------------------------


class DocumentLocation(_Body):
    """Where retrieved evidence sits in one of the tenant's knowledge-base documents."""

    __component__ = "DocumentLocation"
    knowledge_base: str
    document: str
    document_name: str
    start: int
    end: int
    version: int | None = None
    page: int | None = None
    slide: int | None = None
    row: int | None = None
    json_path: str | None = None
    headings: list[str] | None = None


class Evidence(_Body):
    __component__ = "Evidence"
    passage: int | None
    start: int | None
    end: int | None
    text: str
    document: DocumentLocation | None = None
    url: str | None = None


class Span(_Body):
    """A flagged part of the answer: character offsets, confidence, label and evidence."""

    __component__ = "Span"
    start: int
    end: int
    text: str
    confidence: float
    label: str
    reason: str = ""
    evidence: str
    evidence_location: Evidence | None


class Usage(_Body):
    __component__ = "Usage"
    detector_tokens: int
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    own_key_cost_usd: float


FINAL_STATUSES = frozenset({"completed", "failed"})


class Verification(_Body):
    """One verification job, in any state (`status`: queued, running, completed, failed)."""

    __component__ = "Verification"
    id: str
    status: str
    verification_status: str
    reason: str
    query_type: str
    query_type_confidence: float | None
    decision: str
    mode: str
    mode_source: str
    score: float | None
    score_calibration: dict[str, Any]
    model_score: float | None
    final_score: float | None
    threshold: float | None
    detected: bool | None
    verdict: str
    risk_level: str
    spans: list[Span]
    final_response: str
    iterations: int
    warning: str
    diagnostics: list[str]
    coverage: Any
    citations: Any
    cascade: Any
    grounding: Any
    detector: str
    usage: Usage
    latency_ms: Any
    metadata: Any
    error_code: str
    error_message: str
    created_at: dt.datetime
    completed_at: dt.datetime | None

    @property
    def is_final(self) -> bool:
        return self.status in FINAL_STATUSES

    @property
    def passed(self) -> bool:
        """Completed and not flagged (an unverifiable or failed job does not pass)."""
        return self.status == "completed" and self.detected is False


class Message(_Body):
    __component__ = "MessageRequest"
    role: Literal["system", "user", "assistant", "tool", "function", "developer"]
    content: Any = None
    name: str | None = None
    tool_call_id: str | None = None


class VerificationRequest(_Body):
    """The body of `POST /v1/verifications`. Fields left unset are not sent."""

    __component__ = "VerificationRequestRequest"
    context: str | list[str] | None = None
    knowledge_base: str | None = None
    passage_ids: list[str] | None = None
    query: str | None = None
    response: str | None = None
    messages: list[Message] | None = None
    model: str | None = None
    mode: str | None = None
    decision: str | None = None
    threshold: float | None = Field(default=None, ge=0, le=1)
    callback_url: str | None = None
    metadata: dict[str, Any] | None = None
    #: search controls for an answer without context (sources, max_queries, top_k, ...)
    search: dict[str, Any] | None = None
    wait: float | None = Field(default=None, ge=0, le=30)


class FeedbackRequest(_Body):
    __component__ = "FeedbackRequestRequest"
    outcome: Literal["correct", "hallucinated"]
    comment: str | None = None


class Feedback(_Body):
    """What `POST /v1/verifications/{id}/feedback` answers."""

    id: int
    verification: str
    outcome: str


# --- knowledge bases --------------------------------------------------------------------


class KnowledgeBase(_Body):
    __component__ = "KnowledgeBase"
    id: str
    name: str
    description: str = ""
    documents: int
    created_at: dt.datetime


class Document(_Body):
    __component__ = "Document"
    id: str
    knowledge_base: str
    name: str
    source_url: str
    content_type: str
    size_bytes: int
    sha256: str
    version: int
    status: str
    error: str
    language: str
    warnings: list[str]
    metadata: dict[str, Any]
    passages_total: int
    passages_done: int
    progress: float
    #: the newest upload above the served version (version, status, error, progress, name)
    replacement: dict[str, Any] | None
    created_at: dt.datetime
    updated_at: dt.datetime
    indexed_at: dt.datetime | None

    @property
    def is_final(self) -> bool:
        return self.status in ("ready", "failed")


# --- usage and billing ------------------------------------------------------------------


class UsageByMode(_Body):
    __component__ = "UsageByMode"
    verifications: int
    detector_tokens: int
    provider_cost_usd: float
    tenant_provider_cost_usd: float
    price_usd: float
    web_search_queries: int
    web_search_cost_usd: float


class UsageReport(_Body):
    __component__ = "UsageReport"
    month: str
    verifications: int
    detector_tokens: int
    provider_cost_usd: float
    tenant_provider_cost_usd: float
    price_usd: float
    web_search_queries: int
    web_search_cost_usd: float
    by_mode: dict[str, UsageByMode]
