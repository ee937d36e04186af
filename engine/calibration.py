"""A tenant's monotone calibration of the response score (fitted from its labels by the
quality app; isotonic or Platt, stored as knots): applied to the score before the threshold."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence


def check_knots(x: Sequence[float], y: Sequence[float]) -> None:
    """`ValueError` unless x strictly increases, y never decreases, all within [0, 1]."""
    if len(x) != len(y) or len(x) < 2:
        raise ValueError("a calibration needs at least two (x, y) knots of equal count")
    if any(not 0.0 <= v <= 1.0 for v in (*x, *y)):
        raise ValueError("calibration knots must lie in [0, 1]")
    if any(b <= a for a, b in zip(x, x[1:], strict=False)):
        raise ValueError("calibration x knots must strictly increase")
    if any(b < a for a, b in zip(y, y[1:], strict=False)):
        raise ValueError("calibration y knots must not decrease (monotone)")


def calibrated(score: float, x: Sequence[float], y: Sequence[float]) -> float:
    """`score` mapped through the piecewise-linear curve (x, y); flat beyond the ends."""
    if score <= x[0]:
        return float(y[0])
    if score >= x[-1]:
        return float(y[-1])
    i = bisect_right(x, score) - 1
    t = (score - x[i]) / (x[i + 1] - x[i])
    return float(y[i] + t * (y[i + 1] - y[i]))
