"""Fitting a tenant's threshold (and optionally a monotone calibration of the score) from its
labels, judged out of fold against the current policy, and refused unless it beats it.

Pure Python + scikit-learn, no Django: the dashboard and `bench/calibration.py` share it.

* At least `MIN_LABELS` labelled answers, `MIN_PER_CLASS` of each outcome, else `Refused`.
* Objectives: balanced accuracy; or a target precision (the threshold with the best recall
  that keeps precision at or above the target); or a target recall (best precision at or
  above the target recall).
* Methods: `threshold` (the raw score, a new threshold), `isotonic` or `platt` (scikit-learn's
  IsotonicRegression / a one-feature LogisticRegression, stored as knots of a monotone curve).
* Judged by stratified 5-fold cross-validation: every answer is predicted by a fit that never
  saw it. The current policy's decisions are the baseline. Intervals: a paired bootstrap of
  the out-of-fold predictions. A proposal is made only when the out-of-fold objective beats
  the current policy by at least `MIN_GAIN` and the bootstrap puts the gain above zero in at
  least `MIN_CONFIDENCE` of its resamples; otherwise `Refused` says why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold

MIN_LABELS = 100
MIN_PER_CLASS = 15
FOLDS = 5
BOOTSTRAP = 400
MIN_GAIN = 0.02
MIN_CONFIDENCE = 0.975  # i.e. the lower end of the gain's 95 % bootstrap interval is above 0
MAX_KNOTS = 200
OBJECTIVES = ("balanced_accuracy", "precision", "recall")
METHODS = ("threshold", "isotonic", "platt")


class Refused(ValueError):
    """No proposal: too few labels, or nothing that beats the current policy out of fold."""


@dataclass(frozen=True)
class Curve:
    method: str
    x: tuple[float, ...] = ()
    y: tuple[float, ...] = ()

    def apply(self, scores: np.ndarray) -> np.ndarray:
        if self.method == "threshold":
            return scores
        return np.interp(scores, self.x, self.y)


@dataclass(frozen=True)
class Fit:
    curve: Curve
    threshold: float  # on the curve's output

    def predict(self, scores: np.ndarray) -> np.ndarray:
        return (self.curve.apply(scores) >= self.threshold).astype(int)


@dataclass
class Figure:
    value: float
    low: float
    high: float


@dataclass
class Proposal:
    fit: Fit
    objective: str
    target: float | None
    labels: int
    before: dict[str, Figure] = field(default_factory=dict)  # out of fold, current policy
    after: dict[str, Figure] = field(default_factory=dict)  # out of fold, proposal
    gain: Figure | None = None  # on the objective
    confidence: float = 0.0  # share of bootstrap resamples where the proposal wins


def _rates(y: np.ndarray, p: np.ndarray) -> dict[str, float]:
    tp = float(np.sum((y == 1) & (p == 1)))
    fp = float(np.sum((y == 0) & (p == 1)))
    fn = float(np.sum((y == 1) & (p == 0)))
    tn = float(np.sum((y == 0) & (p == 0)))
    tpr = tp / (tp + fn) if tp + fn else 0.0
    tnr = tn / (tn + fp) if tn + fp else 0.0
    return {
        "balanced_accuracy": (tpr + tnr) / 2,
        "precision": tp / (tp + fp) if tp + fp else 0.0,
        "recall": tpr,
    }


def objective_value(y: np.ndarray, p: np.ndarray, objective: str, target: float | None) -> float:
    """Higher is better. A target objective that is missed scores below any that is met."""
    r = _rates(y, p)
    if objective == "balanced_accuracy":
        return r["balanced_accuracy"]
    other = "recall" if objective == "precision" else "precision"
    assert target is not None
    return r[other] if r[objective] >= target else r[objective] - target - 1.0


def _curve(scores: np.ndarray, y: np.ndarray, method: str) -> Curve:
    if method == "threshold":
        return Curve("threshold")
    if method == "isotonic":
        iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(scores, y)
        xs, ys = list(iso.X_thresholds_), list(iso.y_thresholds_)
    else:
        model = LogisticRegression(C=1e4).fit(scores.reshape(-1, 1), y)
        if model.coef_[0][0] <= 0:  # a higher score must never mean less risk
            raise Refused("Platt scaling found no increasing relation between score and label")
        xs = list(np.linspace(0.0, 1.0, 51))
        ys = list(model.predict_proba(np.array(xs).reshape(-1, 1))[:, 1])
    # Knots over the whole [0, 1], strictly increasing x, non-decreasing y, at most MAX_KNOTS.
    if xs[0] > 0.0:
        xs, ys = [0.0, *xs], [ys[0], *ys]
    if xs[-1] < 1.0:
        xs, ys = [*xs, 1.0], [*ys, ys[-1]]
    knots: dict[float, float] = {}
    for a, b in zip(xs, ys, strict=True):
        knots[round(float(a), 6)] = round(float(min(1.0, max(0.0, b))), 6)
    x = sorted(knots)
    yv = list(np.maximum.accumulate([knots[k] for k in x]))
    if len(x) > MAX_KNOTS:
        keep = np.unique(np.linspace(0, len(x) - 1, MAX_KNOTS).round().astype(int))
        x, yv = [x[i] for i in keep], [yv[i] for i in keep]
    return Curve(method, tuple(x), tuple(float(v) for v in yv))


def fit(
    scores: np.ndarray, y: np.ndarray, objective: str, target: float | None, method: str
) -> Fit:
    """The curve and the threshold on its output that maximise the objective on (scores, y)."""
    curve = _curve(scores, y, method)
    mapped = curve.apply(scores)
    values = np.unique(mapped)
    candidates = np.concatenate([(values[:-1] + values[1:]) / 2, values, [1.0 + 1e-9]])
    best_t, best_v = 0.5, -np.inf
    for t in candidates:
        v = objective_value(y, (mapped >= t).astype(int), objective, target)
        # ties: the threshold nearest the middle of the tied range is found by preferring
        # the smaller change in flagged share; keep it simple and deterministic: first best
        if v > best_v + 1e-12:
            best_t, best_v = float(t), v
    return Fit(curve, float(min(1.0, max(0.0, best_t))))


def _check(y: np.ndarray) -> None:
    n, positives = len(y), int(y.sum())
    if n < MIN_LABELS:
        raise Refused(
            f"calibration needs at least {MIN_LABELS} labelled answers; this dataset has {n}"
        )
    if min(positives, n - positives) < MIN_PER_CLASS:
        raise Refused(
            f"calibration needs at least {MIN_PER_CLASS} answers of each label; this dataset "
            f"has {positives} hallucinated and {n - positives} correct"
        )


def _interval(samples: list[float]) -> tuple[float, float]:
    return float(np.percentile(samples, 2.5)), float(np.percentile(samples, 97.5))


def propose(
    scores: Sequence[float],
    labels: Sequence[int],
    current: Sequence[int],
    *,
    objective: str = "balanced_accuracy",
    target: float | None = None,
    method: str = "threshold",
    seed: int = 0,
) -> Proposal:
    """A proposal that beats `current` (the current policy's decisions) out of fold, or
    `Refused`. `scores` are raw (uncalibrated) scores."""
    if objective not in OBJECTIVES or method not in METHODS:
        raise ValueError(f"objective in {OBJECTIVES}, method in {METHODS}")
    if objective != "balanced_accuracy" and not (target is not None and 0 < target < 1):
        raise ValueError(f"a {objective} objective needs a target between 0 and 1")
    s, y, cur = np.asarray(scores, float), np.asarray(labels, int), np.asarray(current, int)
    _check(y)
    oof = np.zeros_like(y)
    for train, test in StratifiedKFold(FOLDS, shuffle=True, random_state=seed).split(s, y):
        oof[test] = fit(s[train], y[train], objective, target, method).predict(s[test])
    rng = np.random.default_rng(seed)
    names = ("balanced_accuracy", "precision", "recall")
    boot: dict[str, list[float]] = {f"{w}:{n}": [] for w in ("before", "after") for n in names}
    gains: list[float] = []
    for _ in range(BOOTSTRAP):
        i = rng.integers(0, len(y), len(y))
        rb, ra = _rates(y[i], cur[i]), _rates(y[i], oof[i])
        for n in names:
            boot[f"before:{n}"].append(rb[n])
            boot[f"after:{n}"].append(ra[n])
        gains.append(
            objective_value(y[i], oof[i], objective, target)
            - objective_value(y[i], cur[i], objective, target)
        )
    proposal = Proposal(
        fit=fit(s, y, objective, target, method),
        objective=objective,
        target=target,
        labels=len(y),
    )
    for which, predicted in (("before", cur), ("after", oof)):
        rates = _rates(y, predicted)
        figures = {n: Figure(rates[n], *_interval(boot[f"{which}:{n}"])) for n in names}
        setattr(proposal, which, figures)
    gain = objective_value(y, oof, objective, target) - objective_value(y, cur, objective, target)
    proposal.gain = Figure(gain, *_interval(gains))
    proposal.confidence = float(np.mean(np.array(gains) > 0))
    if gain < MIN_GAIN or proposal.confidence < MIN_CONFIDENCE:
        raise RefusedProposal(proposal)
    return proposal


class RefusedProposal(Refused):
    """Out of fold the proposal does not beat the current policy; the figures say by how much."""

    def __init__(self, proposal: Proposal):
        assert proposal.gain is not None
        super().__init__(
            f"out of fold the fitted {proposal.fit.curve.method} changes {proposal.objective} "
            f"by {proposal.gain.value:+.3f} (95% interval {proposal.gain.low:+.3f} to "
            f"{proposal.gain.high:+.3f}; better in {proposal.confidence:.0%} of resamples): "
            f"not a clear improvement on the current policy, so nothing is proposed"
        )
        self.proposal = proposal


@dataclass
class TypedProposal:
    """The policy-wide proposal, plus one per query type that had at least `MIN_LABELS`
    labels (`MIN_PER_CLASS` of each outcome) and beat the current policy on that type out of
    fold. `fallbacks` says, per other type seen, why it keeps the policy-wide fit."""

    overall: Proposal
    by_type: dict[str, Proposal] = field(default_factory=dict)
    fallbacks: dict[str, str] = field(default_factory=dict)


def propose_by_query_type(
    scores: Sequence[float],
    labels: Sequence[int],
    current: Sequence[int],
    query_types: Sequence[str],
    **options,
) -> TypedProposal:
    """`propose` on all labels (its refusals unchanged), then on each query type's own labels
    where there are enough; a type whose own fit is refused falls back to the overall fit."""
    overall = propose(scores, labels, current, **options)
    if len(query_types) != len(scores):
        raise ValueError("one query type per labelled answer")
    s, y, cur = np.asarray(scores, float), np.asarray(labels, int), np.asarray(current, int)
    types = np.asarray(query_types, dtype=object)
    typed = TypedProposal(overall)
    for qtype in sorted(set(query_types)):
        mask = types == qtype
        if mask.all():
            typed.fallbacks[qtype] = "every label is of this type: the overall fit is its own"
            continue
        try:
            typed.by_type[qtype] = propose(s[mask], y[mask], cur[mask], **options)
        except Refused as exc:
            typed.fallbacks[qtype] = str(exc)
    return typed
