"""Lightweight mode: a warning from the policy template and the response headers; no LLM call."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..policy import DEFAULT_WARNING, PolicyDocument
from ..types import DetectionInput, DetectionResult, Span
from .result import Iteration, MitigationResult

if TYPE_CHECKING:
    from .request import ModeRequest

MAX_SPANS_IN_WARNING = 5


def format_spans(spans: Sequence[Span], limit: int = MAX_SPANS_IN_WARNING) -> str:
    """`"1950" (contradiction, 0.97); ...` for the template's {spans} field."""
    shown = [f'"{s.text}" ({s.label}, {s.confidence:.2f})' for s in spans[:limit]]
    if len(spans) > limit:
        shown.append(f"and {len(spans) - limit} more")
    return "; ".join(shown) or "no specific span"


def warning_text(template: str, detection: DetectionResult, threshold: float) -> str:
    """Render the policy's `warning_template` ({score}, {spans}, {threshold})."""
    score = detection.score if detection.score is not None else 0.0
    return template.format(score=score, spans=format_spans(detection.spans), threshold=threshold)


def lightweight(
    item: DetectionInput,
    detection: DetectionResult,
    threshold: float,
    template: str = DEFAULT_WARNING,
) -> MitigationResult:
    """The answer unchanged plus a warning; the warning is the mitigation."""
    warning = warning_text(template, detection, threshold)
    return MitigationResult(
        mode="lightweight",
        original_response=item.response,
        final_response=item.response,
        final_score=detection.score,
        converged=False,
        stop_reason="warned",
        iterations=[Iteration(0, item.response, detection.score, list(detection.spans))],
        warnings=[warning],
        final_spans=list(detection.spans),
    )


def run_mode(request: ModeRequest) -> MitigationResult:
    """The registry's runner (`engine/modes.py`)."""
    return lightweight(
        request.item, request.detection, request.threshold, request.policy.warning_template
    )


def headers(
    enabled: bool,
    mode: str,
    score: float | None,
    detected: bool | None,
    iterations: int,
    latency_ms: float | None,
) -> dict[str, str]:
    """The `X-TruthLens-*` headers every verification response carries (docs/api.md "The verification object")."""
    return {
        "X-TruthLens-Enabled": "true" if enabled else "false",
        "X-TruthLens-Mode": mode,
        "X-TruthLens-Score": "" if score is None else f"{score:.4f}",
        "X-TruthLens-Detected": "unknown" if detected is None else str(detected).lower(),
        "X-TruthLens-Iterations": str(iterations),
        "X-TruthLens-Latency-Ms": "" if latency_ms is None else str(round(latency_ms)),
    }


def warning_for(
    enabled: bool, policy: PolicyDocument, result: DetectionResult, threshold: float
) -> str:
    """The warning a finished job carries: none when verification is off or the
    answer passed, the reason when it could not be verified, else the policy's template."""
    if not enabled:
        return ""
    if result.status == "unverifiable":
        return f"This answer could not be verified: {result.reason}"
    if result.status != "verified" or not result.detected:
        return ""
    return warning_text(policy.warning_template, result, threshold)
