"""Storing an engine `DetectionResult` on a job and reading it back (for the mitigate stage)."""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any

from engine import CitationReport, Coverage, DetectionResult, Evidence, Span


def result_to_dict(result: DetectionResult) -> dict[str, Any]:
    data = asdict(result)
    data.pop("tokens", None)  # token probabilities are large and not needed downstream
    return data


def _span(data: dict[str, Any]) -> Span:
    evidence = data.get("evidence")
    return Span(**{**data, "evidence": Evidence(**evidence) if evidence else None})


def result_from_dict(data: dict[str, Any]) -> DetectionResult:
    known = {f.name for f in fields(DetectionResult)}
    values = {k: v for k, v in data.items() if k in known and k != "tokens"}
    values["spans"] = [_span(s) for s in data.get("spans", [])]
    values["coverage"] = Coverage(**data.get("coverage", {}))
    citations = data.get("citations")
    if citations:
        citations = dict(citations)
        citations["uncited_sentences"] = [tuple(p) for p in citations.get("uncited_sentences", [])]
        values["citations"] = CitationReport(**citations)
    return DetectionResult(**values)
