"""Weighted, L2-regularised logistic regression with per-weight sign bounds (L-BFGS-B).

Shared by the response head (`head.py`) and the combiner (`combiner.py`): both are
convex fits on standardised inputs, where some weights may only be non-negative (or
non-positive) so that more suspicious evidence never lowers a score.
"""

from __future__ import annotations

from collections.abc import Sequence

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
