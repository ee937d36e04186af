"""Mitigation data shown on a verification's page, read defensively.

Refinement iterations, the premium models' answers and the judge's
decisions are stored by the mitigation work, which lands separately. This
module is the one place that knows where to find them, so the detail page
renders whatever exists and shows an honest empty state otherwise:

* iterations: a reverse relation named `mitigation_iterations` on the job,
  each row with `number`, `response` (or `text`), `score` and optionally
  `latency_ms`/`usage`; spans of iteration *n* are `DetectedSpan` rows with
  `iteration=n` (already stored today).
* premium answers: reverse relation `premium_answers` (`model`, `response`/`text`).
* judge decisions: reverse relation `judge_decisions` (`segment`, `verdict`/`decision`,
  `reason`, `model`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .highlight import Segment, segments


def _rows(job, accessor: str) -> list:
    manager = getattr(job, accessor, None)
    if manager is None or not hasattr(manager, "all"):
        return []
    return list(manager.all())


def _first(obj, *names: str, default: Any = None) -> Any:
    for name in names:
        value = getattr(obj, name, None)
        if value not in (None, ""):
            return value
    return default


@dataclass
class IterationView:
    number: int
    text: str
    score: float | None
    segments: list[Segment] = field(default_factory=list)
    latency_ms: Any = None
    converged: bool | None = None


def iterations(job, spans_by_iteration: dict[int, list]) -> list[IterationView]:
    out = []
    for row in sorted(_rows(job, "mitigation_iterations"), key=lambda r: _first(r, "number", "index", default=0)):
        number = int(_first(row, "number", "index", default=0))
        text = str(_first(row, "response", "text", default=""))
        spans = spans_by_iteration.get(number, [])
        out.append(
            IterationView(
                number=number,
                text=text,
                score=_first(row, "score"),
                segments=segments(text, [(s.start, s.end, s) for s in spans]),
                latency_ms=_first(row, "latency_ms"),
                converged=_first(row, "converged"),
            )
        )
    return out


def premium_answers(job) -> list[dict[str, Any]]:
    return [
        {"model": _first(r, "model", default="?"), "text": _first(r, "response", "text", default=""),
         "score": _first(r, "score")}
        for r in _rows(job, "premium_answers")
    ]


def judge_decisions(job) -> list[dict[str, Any]]:
    return [
        {"segment": _first(r, "segment", "claim", default=""),
         "verdict": _first(r, "verdict", "decision", default=""),
         "reason": _first(r, "reason", default=""), "model": _first(r, "model", default="")}
        for r in _rows(job, "judge_decisions")
    ]
