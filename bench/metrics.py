"""Accuracy metrics for hallucination detection benchmarks.

Example level: AUROC (threshold-free), balanced accuracy and positive-class
P/R/F1 at a threshold, confusion counts. Base rates in our evaluation sets
are 58-71% hallucinated, so F1 alone flatters a detector that flags
everything; balanced accuracy and AUROC do not.

Character level: micro-averaged overlap P/R/F1 over all examples, as
LettuceDetect's character-level evaluation computes it (overlapping
characters / predicted characters, / gold characters). One deviation, on
purpose: overlapping gold spans (FaithBench keeps one span per annotator)
are merged first, so a character two annotators marked counts once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

Interval = tuple[int, int]


def merge_intervals(spans: Sequence[Interval]) -> list[Interval]:
    merged: list[list[int]] = []
    for start, end in sorted(s for s in spans if s[1] > s[0]):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, e) for s, e in merged]


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank `q` quantile (0..1) of latencies; no interpolation."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def overlap(a: Sequence[Interval], b: Sequence[Interval]) -> int:
    """Characters covered by both (each list is merged first)."""
    return sum(
        max(0, min(e1, e2) - max(s1, s2))
        for s1, e1 in merge_intervals(a)
        for s2, e2 in merge_intervals(b)
    )


@dataclass
class PRF:
    precision: float
    recall: float
    f1: float


def _prf(hit: float, predicted: float, gold: float) -> PRF:
    p = hit / predicted if predicted else 0.0
    r = hit / gold if gold else 0.0
    return PRF(p, r, 2 * p * r / (p + r) if p + r else 0.0)


def char_span_prf(
    predicted: Sequence[Sequence[Interval]], gold: Sequence[Sequence[Interval]]
) -> PRF:
    """Micro character-overlap P/R/F1 over examples (pairs of span lists, same order)."""
    hit = pred_chars = gold_chars = 0
    for pred, ref in zip(predicted, gold, strict=True):
        hit += overlap(pred, ref)
        pred_chars += sum(e - s for s, e in merge_intervals(pred))
        gold_chars += sum(e - s for s, e in merge_intervals(ref))
    return _prf(hit, pred_chars, gold_chars)


@dataclass
class ExampleMetrics:
    n: int
    positives: int
    auroc: float
    balanced_accuracy: float
    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    tn: int
    fn: int


def example_metrics(
    labels: Sequence[int], scores: Sequence[float], threshold: float
) -> ExampleMetrics:
    """Example-level metrics; `score > threshold` means "hallucinated"."""
    from sklearn.metrics import roc_auc_score

    preds = [int(s > threshold) for s in scores]
    tp = sum(1 for y, p in zip(labels, preds, strict=True) if y == 1 and p == 1)
    fp = sum(1 for y, p in zip(labels, preds, strict=True) if y == 0 and p == 1)
    tn = sum(1 for y, p in zip(labels, preds, strict=True) if y == 0 and p == 0)
    fn = sum(1 for y, p in zip(labels, preds, strict=True) if y == 1 and p == 0)
    tpr = tp / (tp + fn) if tp + fn else 0.0
    tnr = tn / (tn + fp) if tn + fp else 0.0
    prf = _prf(tp, tp + fp, tp + fn)
    auroc = float(roc_auc_score(labels, scores)) if len(set(labels)) == 2 else float("nan")
    return ExampleMetrics(
        n=len(labels),
        positives=sum(labels),
        auroc=auroc,
        balanced_accuracy=(tpr + tnr) / 2,
        precision=prf.precision,
        recall=prf.recall,
        f1=prf.f1,
        tp=tp,
        fp=fp,
        tn=tn,
        fn=fn,
    )


def reliability(
    labels: Sequence[int], scores: Sequence[float], bins: int = 10
) -> tuple[float, list[dict]]:
    """Expected calibration error over `bins` equal-width score bins, and the table:
    per bin its range, n, mean score and observed hallucination rate. ECE weighs each
    bin's |mean score - observed rate| by its share of the examples."""
    rows = []
    ece = 0.0
    n = len(labels)
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        idx = [i for i, s in enumerate(scores) if lo <= s < hi or (b == bins - 1 and s == 1.0)]
        if not idx:
            rows.append({"bin": f"{lo:.1f}-{hi:.1f}", "n": 0, "mean_score": None, "rate": None})
            continue
        mean = sum(scores[i] for i in idx) / len(idx)
        rate = sum(labels[i] for i in idx) / len(idx)
        ece += len(idx) / n * abs(mean - rate)
        rows.append({"bin": f"{lo:.1f}-{hi:.1f}", "n": len(idx), "mean_score": mean, "rate": rate})
    return ece, rows
