"""How a policy's verdicts compare with a tenant's labels: the figures and chart data of an
evaluation. Pure Python (+ scikit-learn), no Django: `bench/calibration.py` uses it too."""

from __future__ import annotations

from collections.abc import Sequence

from sklearn.metrics import precision_recall_curve, roc_auc_score

RELIABILITY_BINS = 10


def confusion(labels: Sequence[int], predicted: Sequence[int]) -> dict:
    """Counts with 1 = hallucinated as the positive class."""
    pairs = list(zip(labels, predicted, strict=True))
    return {
        "tp": sum(1 for y, p in pairs if y and p),
        "fp": sum(1 for y, p in pairs if not y and p),
        "fn": sum(1 for y, p in pairs if y and not p),
        "tn": sum(1 for y, p in pairs if not y and not p),
    }


def _ratio(a: float, b: float) -> float | None:
    return a / b if b else None


def balanced_accuracy(labels: Sequence[int], predicted: Sequence[int]) -> float | None:
    c = confusion(labels, predicted)
    tpr, tnr = _ratio(c["tp"], c["tp"] + c["fn"]), _ratio(c["tn"], c["tn"] + c["fp"])
    if tpr is None or tnr is None:
        return tpr if tnr is None else tnr
    return (tpr + tnr) / 2


def auroc(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    return float(roc_auc_score(labels, scores)) if len(set(labels)) == 2 else None


def _chars(spans: Sequence[dict]) -> set[int]:
    return {i for s in spans for i in range(s["start"], s["end"])}


def span_f1(gold: Sequence[Sequence[dict]], found: Sequence[Sequence[dict]]) -> dict:
    """Character-level precision, recall and F1 of the hallucinated spans, over all rows."""
    hit = predicted = true = 0
    for g, f in zip(gold, found, strict=True):
        gc, fc = _chars(g), _chars(f)
        hit, predicted, true = hit + len(gc & fc), predicted + len(fc), true + len(gc)
    p, r = _ratio(hit, predicted), _ratio(hit, true)
    f1 = 2 * p * r / (p + r) if p and r else (0.0 if p is not None and r is not None else None)
    return {"precision": p, "recall": r, "f1": f1}


def reliability(labels: Sequence[int], scores: Sequence[float]) -> list[dict]:
    """Per score bin: mean score, share labelled hallucinated, count (empty bins left out)."""
    bins: list[list[tuple[float, int]]] = [[] for _ in range(RELIABILITY_BINS)]
    for y, s in zip(labels, scores, strict=True):
        bins[min(RELIABILITY_BINS - 1, int(s * RELIABILITY_BINS))].append((s, y))
    return [
        {
            "score": sum(s for s, _ in b) / len(b),
            "observed": sum(y for _, y in b) / len(b),
            "n": len(b),
        }
        for b in bins
        if b
    ]


def pr_curve(labels: Sequence[int], scores: Sequence[float], limit: int = 60) -> list[dict]:
    if len(set(labels)) < 2:
        return []
    precision, recall, thresholds = precision_recall_curve(labels, scores)
    points = [
        {"threshold": float(t), "precision": float(p), "recall": float(r)}
        for p, r, t in zip(precision[:-1], recall[:-1], thresholds, strict=True)
    ]
    step = max(1, len(points) // limit)
    return points[::step]


def summary(
    labels: Sequence[int],
    scores: Sequence[float],
    predicted: Sequence[int],
    gold_spans: Sequence[Sequence[dict]],
    found_spans: Sequence[Sequence[dict]],
) -> dict:
    c = confusion(labels, predicted)
    return {
        "n": len(labels),
        "positives": sum(labels),
        "balanced_accuracy": balanced_accuracy(labels, predicted),
        "precision": _ratio(c["tp"], c["tp"] + c["fp"]),
        "recall": _ratio(c["tp"], c["tp"] + c["fn"]),
        "auroc": auroc(labels, scores),
        "span": span_f1(gold_spans, found_spans),
        "confusion": c,
        "reliability": reliability(labels, scores),
        "pr_curve": pr_curve(labels, scores),
    }
