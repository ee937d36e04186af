"""Cut a text into plain and highlighted segments for the templates (no HTML built here).

Templates escape every segment, so a hostile answer or context cannot inject
markup. Overlapping or out-of-range spans are clipped, never crash the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Segment:
    text: str
    mark: Any = None  # the span (or evidence) that covers this text, if any


def segments(text: str, marks: list[tuple[int, int, Any]]) -> list[Segment]:
    """`marks` are (start, end, payload) character ranges; earlier marks win overlaps."""
    out: list[Segment] = []
    cursor = 0
    ordered = sorted(
        ((max(0, s), min(len(text), e), i, p) for i, (s, e, p) in enumerate(marks)),
        key=lambda m: (m[0], m[2]),
    )
    for start, end, _, payload in ordered:
        start = max(start, cursor)
        if end <= start:
            continue
        if start > cursor:
            out.append(Segment(text[cursor:start]))
        out.append(Segment(text[start:end], payload))
        cursor = end
    if cursor < len(text):
        out.append(Segment(text[cursor:]))
    return out


def numbered_segments(text: str, spans: list) -> list[Segment]:
    """`text` cut around `spans` (objects with `start`/`end`), numbering each span 1, 2, ...

    The number is set as `span.number`, the one the template shows on the mark
    and in the list of explanations.
    """
    for number, span in enumerate(spans, start=1):
        span.number = number
    return segments(text, [(s.start, s.end, s) for s in spans])


def passages_with_evidence(context: list[str] | str, spans: list) -> list[list[Segment]]:
    """Each context passage, with the evidence of `spans` marked where it was found."""
    passages = [context] if isinstance(context, str) else [str(p) for p in (context or [])]
    per_passage: dict[int, list[tuple[int, int, Any]]] = {}
    for span in spans:
        if (
            span.evidence_passage is None
            or span.evidence_start is None
            or span.evidence_end is None
        ):
            continue
        per_passage.setdefault(span.evidence_passage, []).append(
            (span.evidence_start, span.evidence_end, span)
        )
    return [segments(p, per_passage.get(i, [])) for i, p in enumerate(passages)]
