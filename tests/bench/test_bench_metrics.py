"""Benchmark metrics on hand-made cases."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from bench.metrics import char_span_prf, example_metrics, merge_intervals, percentile
from bench.overlap_baseline import unsupported_spans
from engine.types import DetectionInput


def test_exact_span_match_is_perfect():
    prf = char_span_prf([[(0, 10)]], [[(0, 10)]])
    assert (prf.precision, prf.recall, prf.f1) == (1.0, 1.0, 1.0)


def test_partial_overlap_is_micro_averaged_over_examples():
    # example 1: predicted 0-10, gold 5-15 -> 5 overlapping chars
    # example 2: predicted nothing, gold 0-10 -> 10 missed chars
    prf = char_span_prf([[(0, 10)], []], [[(5, 15)], [(0, 10)]])
    assert prf.precision == pytest.approx(5 / 10)
    assert prf.recall == pytest.approx(5 / 20)
    assert prf.f1 == pytest.approx(2 * 0.5 * 0.25 / 0.75)


def test_overlapping_gold_spans_from_two_annotators_count_once():
    assert merge_intervals([(0, 5), (3, 8), (10, 12)]) == [(0, 8), (10, 12)]
    prf = char_span_prf([[(0, 8)]], [[(0, 5), (3, 8)]])
    assert (prf.precision, prf.recall) == (1.0, 1.0)


def test_no_predictions_and_no_gold_give_zero_not_error():
    prf = char_span_prf([[]], [[]])
    assert (prf.precision, prf.recall, prf.f1) == (0.0, 0.0, 0.0)


def test_example_metrics_confusion_and_balanced_accuracy():
    m = example_metrics([1, 1, 0, 0], [0.9, 0.2, 0.7, 0.1], threshold=0.5)
    assert (m.tp, m.fn, m.fp, m.tn) == (1, 1, 1, 1)
    assert m.balanced_accuracy == 0.5
    assert m.auroc == pytest.approx(0.75)
    assert math.isnan(example_metrics([1, 1], [0.3, 0.4], 0.5).auroc)


def test_percentile_is_the_nearest_rank_without_interpolation():
    latencies = [float(v) for v in range(20, 0, -1)]  # unsorted on purpose
    assert percentile(latencies, 0.5) == 11.0
    assert percentile(latencies, 0.95) == 20.0
    assert percentile(latencies, 1.0) == 20.0  # never past the end
    assert percentile([7.0], 0.95) == 7.0


def test_overlap_baseline_flags_words_missing_from_context():
    item = DetectionInput.build(["The tower is in Paris."], "The tower is in Berlin and Rome.")
    fraction, spans = unsupported_spans(item)
    assert fraction == pytest.approx(2 / 3)  # content words: tower, berlin, rome
    assert [item.response[s:e] for s, e in spans] == ["Berlin and Rome"]


def test_reliability_is_zero_for_calibrated_scores_and_measures_the_gap_otherwise():
    from bench.metrics import reliability

    # given: in the 0.2 bin, 1 of 5 is hallucinated; in the 0.8 bin, 4 of 5
    labels = [1, 0, 0, 0, 0, 1, 1, 1, 1, 0]
    calibrated = [0.25] * 5 + [0.85] * 5
    ece, rows = reliability(labels, [0.2] * 5 + [0.8] * 5)
    assert ece == pytest.approx(0.0)
    assert [r["n"] for r in rows if r["n"]] == [5, 5]
    # when the scores overstate the risk by 0.05 in every bin, ECE is 0.05
    assert reliability(labels, calibrated)[0] == pytest.approx(0.05)
    # a score of exactly 1.0 falls in the last bin
    assert reliability([1], [1.0])[1][-1]["n"] == 1


@pytest.mark.parametrize(
    "path", sorted((Path(__file__).resolve().parents[2] / "bench" / "cases").glob("*.jsonl"))
)
def test_every_customer_style_case_set_is_balanced_with_exact_spans(path):
    from bench.customer_cases import load_cases

    cases = load_cases(path)  # raises on a span that is not the response's text
    labels = [c["label"] for c in cases]
    assert len(cases) >= 50
    assert sum(labels) * 2 == len(labels)
    assert len({c["id"] for c in cases}) == len(cases)
