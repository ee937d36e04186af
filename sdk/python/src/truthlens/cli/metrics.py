"""The run's figures: counts by verdict, cost, latency percentiles and, with labels,
balanced accuracy, precision and recall (the positive class is "hallucinated")."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


def percentile(values: list[float], q: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default), q in [0, 100]."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def outcome(record: dict[str, Any]) -> str:
    """What a row came to: its verdict, else why it has none (unverifiable, failed, error)."""
    if record.get("error"):
        return "error"
    if record.get("status") == "failed":
        return "failed"
    return record.get("verdict") or record.get("verification_status") or "unknown"


@dataclass
class Confusion:
    tp: int = 0
    fp: int = 0
    tn: int = 0
    fn: int = 0
    unscored: int = 0  # labelled rows without a yes/no answer (unverifiable, failed, error)

    def add(self, label: bool, detected: bool | None) -> None:
        if detected is None:
            self.unscored += 1
        elif label and detected:
            self.tp += 1
        elif label:
            self.fn += 1
        elif detected:
            self.fp += 1
        else:
            self.tn += 1

    @property
    def scored(self) -> int:
        return self.tp + self.fp + self.tn + self.fn

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def specificity(self) -> float | None:
        return self.tn / (self.tn + self.fp) if self.tn + self.fp else None

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def balanced_accuracy(self) -> float | None:
        if self.recall is None or self.specificity is None:
            return None
        return (self.recall + self.specificity) / 2


@dataclass
class Summary:
    rows: int = 0
    by_outcome: Counter[str] = field(default_factory=Counter)
    cost_usd: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    confusion: Confusion | None = None
    # (score, label) of labelled, scored rows, for the score distribution plot
    scores: list[tuple[float, bool]] = field(default_factory=list)

    @property
    def p50_ms(self) -> float | None:
        return percentile(self.latencies_ms, 50)

    @property
    def p95_ms(self) -> float | None:
        return percentile(self.latencies_ms, 95)


def summarize(records: list[dict[str, Any]]) -> Summary:
    summary = Summary()
    for record in records:
        summary.rows += 1
        summary.by_outcome[outcome(record)] += 1
        summary.cost_usd += record.get("cost_usd") or 0.0
        if not record.get("error") and record.get("latency_ms") is not None:
            summary.latencies_ms.append(record["latency_ms"])
        label = record.get("label")
        if label is None:
            continue
        if summary.confusion is None:
            summary.confusion = Confusion()
        detected = None if record.get("error") else record.get("detected")
        summary.confusion.add(bool(label), detected)
        if record.get("score") is not None and detected is not None:
            summary.scores.append((record["score"], bool(label)))
    return summary
