"""Weighted, L2-regularised logistic regression with per-weight sign bounds (L-BFGS-B).

Shared by the response head (`head.py`) and the combiner (`combiner.py`): both are
convex fits on standardised inputs, where some weights may only be non-negative (or
non-positive) so that more suspicious evidence never lowers a score.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

Bound = tuple[float | None, float | None]


def fit_logistic(
    z: np.ndarray, y: np.ndarray, sample_w: np.ndarray, bounds: Sequence[Bound], l2: float
) -> tuple[np.ndarray, float]:
    """(weights, intercept) minimising the weighted mean log loss plus `l2/2·|w|²`;
    `bounds` gives one (low, high) per column of `z` (the intercept is free)."""
    from scipy.optimize import minimize

    n, d = z.shape

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        logits = z @ w[:d] + w[d]
        p = 1.0 / (1.0 + np.exp(-logits))
        value = np.mean(sample_w * (np.logaddexp(0.0, logits) - y * logits))
        g = sample_w * (p - y) / n
        grad = np.append(z.T @ g + l2 * w[:d], g.sum())
        return float(value + l2 * np.sum(w[:d] ** 2) / 2), grad

    result = minimize(
        loss, np.zeros(d + 1), jac=True, method="L-BFGS-B", bounds=[*bounds, (None, None)]
    )
    return result.x[:d], float(result.x[d])


M = TypeVar("M")


def fit_standardised(
    model: Callable[..., M],
    x: np.ndarray,
    y: np.ndarray,
    sample_w: np.ndarray,
    bounds: Sequence[Bound],
    l2: float,
    features: tuple[str, ...],
) -> M:
    """`model` (`Combiner`, `ResponseHead`) fitted by `fit_logistic` on `x` standardised per
    column (a constant column keeps scale 1), each number rounded to 8 places, with each
    column's training range (`low`, `high`)."""
    mean, scale = x.mean(0), x.std(0)
    scale[scale < 1e-9] = 1.0
    weights, bias = fit_logistic((x - mean) / scale, y, sample_w, bounds, l2)
    return model(
        features=features,
        mean=tuple(round(float(v), 8) for v in mean),
        scale=tuple(round(float(v), 8) for v in scale),
        weights=tuple(round(float(v), 8) for v in weights),
        bias=round(bias, 8),
        low=tuple(round(float(v), 8) for v in x.min(0)),
        high=tuple(round(float(v), 8) for v in x.max(0)),
    )
