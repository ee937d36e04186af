"""Answers in a language the detector was not trained on: the checks that need no
language model.

Numbers, dates, times, money and units read the same in any language once their
notation is rewritten (`text.locale_numbers`). Such an answer is `verified` on those
checks when it states at least one value the context can settle (the same value, or a
comparable one it contradicts), and `coverage.checks` says that only "values" ran; an
answer with no such value stays `unverifiable`, as before. Words (names, negations,
added clauses) stay unchecked until a model is measured for the language.
"""

from __future__ import annotations

from dataclasses import replace

from ..text.language import detect_language
from ..text.locale_numbers import Rewritten, to_english_notation
from ..types import DetectionInput, DetectionResult, Evidence, Span
from .alignment import sentence_around
from .findings import Finding
from .spans import risk_level
from .typed_checks import CONFLICT_FLOOR, value_findings

#: The score of an answer whose every checked value the context states.
SETTLED_SCORE = 0.05


def values_only(
    item: DetectionInput, lang: str, threshold: float, base: DetectionResult
) -> DetectionResult:
    """`base` (the unverifiable result) turned into a values-only verdict where the
    answer states values the context settles; `base` unchanged otherwise."""
    answer = to_english_notation(item.response, lang)
    context = [to_english_notation(p, detect_language(p, lang)) for p in item.context]
    query = to_english_notation(item.query, lang).text if item.query else None
    findings = value_findings([c.text for c in context], answer.text, query, align=False)
    settled = [f for f in findings if f.verdict in ("match", "conflict")]
    if not settled:
        return base
    spans = [_span(item, answer, context, f) for f in findings if f.verdict == "conflict"]
    score = CONFLICT_FLOOR if spans else SETTLED_SCORE
    coverage = replace(base.coverage, checks=["values"])
    checked = len(settled)
    return replace(
        base,
        status="verified",
        score=score,
        model_score=score,
        detected=score >= threshold,
        verdict="hallucinated" if score >= threshold else "faithful",
        risk_level=risk_level(score),
        spans=spans,
        coverage=coverage,
        reason=f"{base.reason}; only numbers, dates, times, money and units were checked "
        f"({checked} value{'s' if checked != 1 else ''} settled by the context)",
    )


def _span(item: DetectionInput, answer: Rewritten, context: list[Rewritten], f: Finding) -> Span:
    start, end = answer.span(f.start, f.end)
    evidence = None
    if f.evidence is not None:
        i, a, b = f.evidence
        a, b = context[i].span(a, b)
        lo, hi = sentence_around(item.context[i], a, b)
        evidence = Evidence(i, lo, hi, item.context[i][lo:hi])
    return Span(
        start, end, item.response[start:end], CONFLICT_FLOOR, "contradiction", evidence, f.reason
    )
