"""From token probabilities to spans and one response score (docs/detection.md "Aggregation")."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..types import Aggregation, RiskLevel, Span, TokenProb

RISK_MODERATE = 0.3
RISK_HIGH = 0.6


def merge_spans(
    response: str,
    tokens: Sequence[TokenProb],
    token_threshold: float = 0.5,
    min_span_length: int = 1,
    min_span_confidence: float = 0.5,
    max_gap: int = 1,
) -> list[Span]:
    """Merge adjacent tokens above `token_threshold` into character spans.

    Tokens are adjacent when at most `max_gap` characters (whitespace or
    punctuation between words) separate them. A span's confidence is the
    maximum probability of its tokens; spans shorter than `min_span_length`
    characters (after stripping) or below `min_span_confidence` are dropped.
    """
    spans: list[Span] = []
    cur: list[TokenProb] = []

    def flush() -> None:
        if not cur:
            return
        start, end = cur[0].start, cur[-1].end
        # Trim whitespace so offsets point at visible text.
        while start < end and response[start].isspace():
            start += 1
        while end > start and response[end - 1].isspace():
            end -= 1
        conf = max(t.prob for t in cur)
        if end - start >= min_span_length and conf >= min_span_confidence:
            spans.append(Span(start=start, end=end, text=response[start:end], confidence=conf))
        cur.clear()

    for tok in sorted(tokens, key=lambda t: t.start):
        if tok.prob <= token_threshold:
            flush()
            continue
        if cur and tok.start - cur[-1].end > max_gap:
            flush()
        cur.append(tok)
    flush()
    return spans


def noisy_or(tokens: Sequence[TokenProb], token_threshold: float = 0.5) -> float:
    """`1 − Π(1 − p_i)` over tokens with `p_i > τ_token`; 0.0 when none qualify."""
    log_keep = 0.0
    for tok in tokens:
        if tok.prob > token_threshold:
            if tok.prob >= 1.0:
                return 1.0
            log_keep += math.log1p(-tok.prob)
    return 1.0 - math.exp(log_keep)


def span_max(spans: Sequence[Span]) -> float:
    """The highest span confidence; 0.0 for an answer with no spans."""
    return max((s.confidence for s in spans), default=0.0)


def response_score(
    tokens: Sequence[TokenProb],
    spans: Sequence[Span],
    aggregation: Aggregation = "span_max",
    token_threshold: float = 0.5,
    response_prob: float | None = None,
) -> float:
    """The answer's hallucination score from its tokens and spans.

    "calibrated" takes the detector's own example-level probability (its
    response head, trained on human labels) and falls back to span-max for
    detectors that have none (a mounted checkpoint, the lexical detector).
    """
    if aggregation == "calibrated":
        return span_max(spans) if response_prob is None else response_prob
    if aggregation == "noisy_or":
        return noisy_or(tokens, token_threshold)
    if aggregation == "span_max":
        return span_max(spans)
    raise ValueError(f"unknown aggregation {aggregation!r}")


def optimal_threshold(cost_ratio: float, prior: float) -> float:
    """Bayes-optimal decision threshold `τ* = 1 / (1 + λ·(1−π)/π)`.

    `cost_ratio` λ is the cost of a false alarm relative to a missed
    hallucination; `prior` π is the base rate of hallucinated answers.
    """
    if not 0.0 < prior < 1.0:
        raise ValueError("prior must be in (0, 1)")
    if cost_ratio <= 0:
        raise ValueError("cost_ratio must be positive")
    return 1.0 / (1.0 + cost_ratio * (1.0 - prior) / prior)


def risk_level(score: float) -> RiskLevel:
    if score >= RISK_HIGH:
        return "high"
    if score >= RISK_MODERATE:
        return "moderate"
    return "low"
