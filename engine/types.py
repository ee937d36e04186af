"""Plain data types shared by the whole detection engine.

The engine is pure Python: nothing here imports Django or Celery, so the
workers, the API and the benchmarks all speak the same types.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

SpanLabel = Literal["contradiction", "unsupported"]
Status = Literal["verified", "unverifiable", "skipped"]
RiskLevel = Literal["low", "moderate", "high"]
Aggregation = Literal["calibrated", "noisy_or", "span_max"]

QUERY_TYPES = (
    "factual_qa",
    "summarization",
    "data2text",
    "creative",
    "code",
    "opinion",
    "other",
)


@dataclass(frozen=True)
class DetectionInput:
    """One answer to check against its grounding context.

    `context` is a list of passages (a single string is one passage).
    `passage_ids` names the passages for citation checks (`[id]` markers);
    when absent the passages are numbered "1".."n".
    """

    context: tuple[str, ...]
    response: str
    query: str | None = None
    passage_ids: tuple[str, ...] | None = None

    @classmethod
    def build(
        cls,
        context: str | list[str] | tuple[str, ...] | None,
        response: str,
        query: str | None = None,
        passage_ids: list[str] | tuple[str, ...] | None = None,
    ) -> DetectionInput:
        if context is None:
            passages: tuple[str, ...] = ()
        elif isinstance(context, str):
            passages = (context,) if context else ()
        else:
            passages = tuple(context)
        ids = tuple(passage_ids) if passage_ids is not None else None
        return cls(context=passages, response=response, query=query, passage_ids=ids)


@dataclass(frozen=True)
class TokenProb:
    """Hallucination probability of one answer token; offsets are characters of the answer."""

    start: int
    end: int
    prob: float


@dataclass
class Coverage:
    """What the detector actually saw, so a result is never a silent pass."""

    context_chars_given: int = 0
    context_chars_checked: int = 0
    context_tokens_given: int = 0
    context_tokens_checked: int = 0
    answer_tokens_given: int = 0
    answer_tokens_checked: int = 0
    #: length of the answer prefix the detector scored (None: not recorded); less than the
    #: answer's length when `answer_truncated`, so a page can mark the part never checked
    answer_chars_checked: int | None = None
    windows: int = 0
    context_truncated: bool = False
    answer_truncated: bool = False
    language: str = "und"
    language_supported: bool = True
    #: passages left out because they share no content word or number with the answer
    passages_unrelated: int = 0
    #: the detector read the context sentences selected for the answer, not all of it
    #: (`context_chars_checked` of `context_chars_given`; `evidence_selection.py`)
    evidence_selected: bool = False
    #: which checks ran: "model" (the detector), "values" (numbers, dates, times, money
    #: and units, in any language), "sentences" (English negation/antonym clause checks)
    checks: list[str] = field(default_factory=list)


@dataclass
class TokenPrediction:
    """A detector's raw output for one input: per-token probabilities plus coverage."""

    tokens: list[TokenProb]
    coverage: Coverage
    detector_tokens: int = 0  # tokens pushed through the model, for billing
    #: The detector's own calibrated example-level probability, when it has a
    #: response head (the default detector does); used by "calibrated" aggregation.
    response_prob: float | None = None
    #: A model with a pair head (the v2 default): its probability that the answer
    #: as a whole is not entailed, the minimum over the context windows.
    pair_prob: float | None = None
    #: `typed_checks.Finding`s when the detector already applied the typed checks (the
    #: default does, before its head); None: the pipeline checks and applies them.
    typed_findings: list[Any] | None = None
    #: The response head's inputs and its raw probability ("head_prob"), for the
    #: combiner (`scoring/signals.py`); None for detectors without a head.
    head_features: dict[str, float] | None = None


@dataclass
class Evidence:
    """The best-matching context text for a span; offsets into `context[passage_index]`."""

    passage_index: int
    start: int
    end: int
    text: str
    similarity: float = 0.0


@dataclass
class Span:
    start: int
    end: int
    text: str
    confidence: float
    label: SpanLabel = "unsupported"
    evidence: Evidence | None = None
    reason: str = ""


@dataclass
class CitationReport:
    markers: int = 0
    invalid: list[str] = field(default_factory=list)
    uncited_sentences: list[tuple[int, int]] = field(default_factory=list)
    citation_ratio: float = 0.0
    risk: float = 0.0
    applicable: bool = False


@dataclass
class DetectionResult:
    status: Status
    score: float | None
    detected: bool | None
    risk_level: RiskLevel | None
    spans: list[Span] = field(default_factory=list)
    tokens: list[TokenProb] = field(default_factory=list)
    coverage: Coverage = field(default_factory=Coverage)
    query_type: str = "other"
    query_type_confidence: float = 0.0
    reason: str = ""  # why unverifiable/skipped
    citations: CitationReport | None = None
    model_score: float | None = None  # detector-only score before citation signal
    #: the score before the policy's calibration (equal to `score` without one)
    uncalibrated_score: float | None = None
    detector: str = ""
    detector_tokens: int = 0
    threshold: float = 0.5
    #: "hallucinated" | "faithful" | "uncertain" (a score in the policy's uncertainty
    #: band); None when nothing was verified
    verdict: str | None = None
    #: The answer-level signals the combiner read (`scoring/signals.py`); empty when
    #: none was computed.
    signals: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
