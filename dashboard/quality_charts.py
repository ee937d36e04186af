"""Coordinates for the evaluation report's inline SVG charts (reliability diagram and
precision/recall curve). Only numbers leave here; the template draws them."""

from __future__ import annotations

SIZE = 240  # the plot's side in SVG units
PAD = 30


def _xy(x: float, y: float) -> tuple[float, float]:
    return round(PAD + x * SIZE, 1), round(PAD + (1 - y) * SIZE, 1)


def _polyline(points: list[tuple[float, float]]) -> str:
    return " ".join(f"{x},{y}" for x, y in (_xy(a, b) for a, b in points))


def reliability(bins: list[dict]) -> dict:
    """The diagonal (perfect calibration), the observed curve and a dot per bin."""
    dots = [{"xy": _xy(b["score"], b["observed"]), **b} for b in bins]
    return {
        "diagonal": _polyline([(0, 0), (1, 1)]),
        "curve": _polyline([(b["score"], b["observed"]) for b in bins]),
        "dots": dots,
    }


def pr_curve(points: list[dict], threshold: float) -> dict:
    """Recall on x, precision on y; the marker is the point at the policy's threshold."""
    if not points:
        return {}
    curve = sorted(points, key=lambda p: p["recall"])
    at = min(points, key=lambda p: abs(p["threshold"] - threshold))
    return {
        "curve": _polyline([(p["recall"], p["precision"]) for p in curve]),
        "marker": _xy(at["recall"], at["precision"]),
        "at": at,
    }


def frame() -> dict:
    """Axes and grid lines at 0, .5 and 1."""
    ticks = [0.0, 0.5, 1.0]
    return {
        "size": SIZE + 2 * PAD,
        "x_axis": _polyline([(0, 0), (1, 0)]),
        "y_axis": _polyline([(0, 0), (0, 1)]),
        "x_ticks": [{"xy": _xy(t, 0), "label": t} for t in ticks],
        "y_ticks": [{"xy": _xy(0, t), "label": t} for t in ticks],
    }
