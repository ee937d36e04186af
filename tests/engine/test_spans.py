import math

import pytest

from engine.scoring.spans import (
    merge_spans,
    noisy_or,
    optimal_threshold,
    response_score,
    risk_level,
    span_max,
)
from engine.types import Span, TokenProb


def test_noisy_or_combines_only_tokens_above_the_token_threshold():
    tokens = [TokenProb(0, 1, 0.6), TokenProb(2, 3, 0.8), TokenProb(4, 5, 0.4)]
    assert noisy_or(tokens, 0.5) == pytest.approx(1 - 0.4 * 0.2)


def test_noisy_or_is_zero_without_qualifying_tokens_and_one_for_a_certain_token():
    assert noisy_or([TokenProb(0, 1, 0.5)], 0.5) == 0.0
    assert noisy_or([TokenProb(0, 1, 1.0), TokenProb(1, 2, 0.7)], 0.5) == 1.0


def test_span_max_takes_the_most_confident_span():
    spans = [Span(0, 1, "a", 0.7), Span(2, 3, "b", 0.9)]
    assert span_max(spans) == 0.9
    assert span_max([]) == 0.0
    assert response_score([], spans, "span_max") == 0.9


def test_response_score_rejects_unknown_aggregation():
    with pytest.raises(ValueError, match="unknown aggregation"):
        response_score([], [], "mean")  # type: ignore[arg-type]


def test_merge_spans_joins_adjacent_tokens_and_splits_at_low_ones():
    text = "built in 1950 by Bob and others"
    tokens = [
        TokenProb(0, 5, 0.1),
        TokenProb(6, 8, 0.7),
        TokenProb(9, 13, 0.9),
        TokenProb(14, 16, 0.1),
        TokenProb(17, 20, 0.8),
    ]
    spans = merge_spans(text, tokens, token_threshold=0.5)
    assert [(s.text, s.confidence) for s in spans] == [("in 1950", 0.9), ("Bob", 0.8)]
    assert all(text[s.start : s.end] == s.text for s in spans)


def test_merge_spans_drops_short_and_low_confidence_spans():
    text = "a, then 1950"
    tokens = [TokenProb(0, 1, 0.9), TokenProb(8, 12, 0.55)]
    assert [s.text for s in merge_spans(text, tokens, min_span_length=2)] == ["1950"]
    assert merge_spans(text, tokens, min_span_length=2, min_span_confidence=0.6) == []


def test_optimal_threshold_follows_the_cost_ratio_and_prior():
    assert optimal_threshold(1.0, 0.5) == pytest.approx(0.5)
    assert optimal_threshold(4.0, 0.2) == pytest.approx(1 / 17)
    assert math.isclose(optimal_threshold(0.25, 0.8), 1 / (1 + 0.25 * 0.25))
    with pytest.raises(ValueError, match="prior"):
        optimal_threshold(1.0, 1.0)
    with pytest.raises(ValueError, match="cost_ratio"):
        optimal_threshold(0.0, 0.5)


@pytest.mark.parametrize(
    ("score", "level"),
    [(0.0, "low"), (0.299, "low"), (0.3, "moderate"), (0.599, "moderate"), (0.6, "high")],
)
def test_risk_level_boundaries(score, level):
    assert risk_level(score) == level
