"""Text the service adds to an answer is never scored.

The repair and premium modes qualify a claim they could not confirm by prefixing
it with a qualifier ("(Not confirmed by the provided context) "). That text is
ours, not the model's: scoring it would flag the product's own words as an
unsupported span of the refined answer. `unscored` wraps a re-detection so the
detector sees the answer without the added text, and maps the spans it finds
back onto the answer as returned.
"""

from __future__ import annotations

from dataclasses import replace

from ..types import DetectionInput, DetectionResult, Span
from .result import Redetect


def _cuts(text: str, added: str) -> list[tuple[int, int]]:
    out, at = [], text.find(added)
    while added and at >= 0:
        out.append((at, at + len(added)))
        at = text.find(added, at + len(added))
    return out


def _to_original(pos: int, cuts: list[tuple[int, int]], *, end: bool) -> int:
    """A position in the stripped text, in the original one. A span's end that meets a
    cut stays before it; a start that meets a cut moves past it."""
    shift = 0
    for start, stop in cuts:
        here = start - shift  # where the cut sat in the stripped text
        if pos > here or (pos == here and not end):
            shift += stop - start
        else:
            break
    return pos + shift


def _mapped(span: Span, text: str, cuts: list[tuple[int, int]]) -> Span:
    start = _to_original(span.start, cuts, end=False)
    end = max(start, _to_original(span.end, cuts, end=True))
    return replace(span, start=start, end=end, text=text[start:end])


def unscored(redetect: Redetect, added: str) -> Redetect:
    """`redetect`, with every occurrence of `added` left out of what is scored."""

    def run(item: DetectionInput) -> DetectionResult:
        text = item.response
        cuts = _cuts(text, added)
        if not cuts:
            return redetect(item)
        kept, last = [], 0
        for start, stop in cuts:
            kept.append(text[last:start])
            last = stop
        kept.append(text[last:])
        result = redetect(replace(item, response="".join(kept)))
        spans = [_mapped(s, text, cuts) for s in result.spans]
        tokens = [
            replace(
                t,
                start=_to_original(t.start, cuts, end=False),
                end=_to_original(t.end, cuts, end=True),
            )
            for t in result.tokens
        ]
        return replace(result, spans=[s for s in spans if s.end > s.start], tokens=tokens)

    return run
