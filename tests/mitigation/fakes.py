"""A deterministic stand-in for the detection pipeline, so tests need no model.

Every content word of the answer that does not occur in the context is
flagged; numbers become `contradiction` spans when the context has numbers
(the answer changed a value), other words `unsupported`. With n flagged words
the score is 1 - 0.5**n: more ungrounded words, higher score.
"""

from __future__ import annotations

import re

from verification.engine.types import DetectionInput, DetectionResult, Span

_WORD = re.compile(r"\d[\d,.]*\d|\d|[A-Za-z]+")
_STOP = {"a", "an", "the", "of", "in", "on", "is", "was", "it", "and", "to", "by", "not"}


def fake_redetect(item: DetectionInput, threshold: float = 0.5) -> DetectionResult:
    context = " ".join(item.context).lower()
    known = set(_WORD.findall(context))
    ctx_has_numbers = any(w[0].isdigit() for w in known)
    flagged = [
        m
        for m in _WORD.finditer(item.response)
        if m.group().lower() not in known and m.group().lower() not in _STOP
    ]
    score = 1 - 0.5 ** len(flagged) if flagged else 0.05
    spans = [
        Span(
            start=m.start(),
            end=m.end(),
            text=m.group(),
            confidence=score,
            label="contradiction" if m.group()[0].isdigit() and ctx_has_numbers else "unsupported",
        )
        for m in flagged
    ]
    return DetectionResult(
        status="verified",
        score=score,
        detected=score >= threshold,
        risk_level="high" if score >= 0.6 else "low",
        spans=spans,
        threshold=threshold,
    )
