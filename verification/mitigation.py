"""Lightweight mitigation: a warning built from the policy template, no extra LLM call."""

from __future__ import annotations

from .engine.types import DetectionResult


def lightweight_warning(result: DetectionResult, template: str) -> str:
    if result.status == "unverifiable":
        return f"This answer could not be verified: {result.reason}"
    if result.status != "verified" or not result.detected:
        return ""
    spans = "; ".join(f'"{s.text}" ({s.label}, {s.confidence:.2f})' for s in result.spans[:10])
    return template.format(score=result.score or 0.0, spans=spans, threshold=result.threshold)
