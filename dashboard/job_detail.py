"""Mitigation data on a verification's page, from `MitigationStep` rows.

The mitigation stage stores one step per answer it produced (`refine`,
`final`, `repair`: index, text, score, spans as JSON, the LLM calls in
`detail["calls"]`) and, when it edited the answer segment by segment, one
step whose `detail["changes"]` lists each edit with who decided it (`judge`
for premium, `repair` otherwise). This module turns those rows into what the
template draws; with no rows every section shows an honest empty state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .highlight import Segment, segments


@dataclass
class IterationView:
    number: int
    kind: str
    text: str
    score: float | None
    note: str = ""
    model: str = ""
    cost_usd: Any = None
    latency_ms: int = 0
    segments: list[Segment] = field(default_factory=list)
    calls: list[dict] = field(default_factory=list)

    @property
    def calls_by_model(self) -> list[tuple[str, int]]:
        """(model, number of calls) in the order first called: a round's calls may go to
        several models (the refiner, the judge), each named with its own count."""
        counts: dict[str, int] = {}
        for call in self.calls:
            name = str(call.get("model") or self.model or "unknown model")
            counts[name] = counts.get(name, 0) + 1
        return list(counts.items())


@dataclass
class MitigationView:
    iterations: list[IterationView] = field(default_factory=list)
    changes: list[dict] = field(default_factory=list)
    change_kind: str = ""  # "judge" or "repair"
    stop_reason: str = ""
    warnings: list[str] = field(default_factory=list)
    second_opinions: list[dict] = field(default_factory=list)  # premium verifier calls


def _numbered(spans: list) -> list[dict]:
    out = []
    for number, span in enumerate(spans or [], start=1):
        if isinstance(span, dict) and "start" in span and "end" in span:
            out.append({**span, "number": number})
    return out


def mitigation(steps: list) -> MitigationView:
    """Summarise a job's steps (already fetched, ordered by index)."""
    view = MitigationView()
    for step in steps:
        detail = step.detail if isinstance(step.detail, dict) else {}
        if "changes" in detail:
            view.changes.extend(c for c in detail.get("changes") or [] if isinstance(c, dict))
            view.change_kind = step.kind
            view.stop_reason = detail.get("stop_reason") or view.stop_reason
            view.warnings.extend(detail.get("warnings") or [])
            continue
        calls = [c for c in detail.get("calls") or [] if isinstance(c, dict)]
        spans = _numbered(step.spans)
        view.iterations.append(
            IterationView(
                number=step.index,
                kind=step.kind,
                text=step.text,
                score=step.score,
                note=detail.get("note", ""),
                model=step.model,
                cost_usd=step.cost_usd,
                latency_ms=step.latency_ms,
                segments=segments(step.text, [(s["start"], s["end"], s) for s in spans]),
                calls=calls,
            )
        )
        view.second_opinions.extend(c for c in calls if c.get("role") == "verify")
    return view
