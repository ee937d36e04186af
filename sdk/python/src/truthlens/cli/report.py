"""The HTML report of a labelled run: the figures, a confusion matrix and the score
distribution of each class, drawn with matplotlib and embedded as PNG (one self-contained file).
"""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path

from .metrics import Confusion, Summary


class ReportUnavailable(RuntimeError):
    """matplotlib is not installed (`pip install 'truthlens-sdk[cli]'`)."""


def _pyplot():
    try:
        import matplotlib
    except ImportError as exc:
        raise ReportUnavailable(
            "the HTML report needs matplotlib: pip install 'truthlens-sdk[cli]'"
        ) from exc
    matplotlib.use("Agg")  # no display; files only
    from matplotlib import pyplot

    return pyplot


def _png(figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode()


def confusion_png(confusion: Confusion) -> str:
    plt = _pyplot()
    cells = [[confusion.tn, confusion.fp], [confusion.fn, confusion.tp]]
    figure, axes = plt.subplots(figsize=(4, 3.6))
    axes.imshow(cells, cmap="Blues")
    peak = max(max(row) for row in cells) or 1
    for i, row in enumerate(cells):
        for j, value in enumerate(row):
            colour = "white" if value > peak / 2 else "black"
            axes.text(j, i, str(value), ha="center", va="center", color=colour, fontsize=14)
    axes.set_xticks([0, 1], ["passed", "flagged"])
    axes.set_yticks([0, 1], ["faithful", "hallucinated"])
    axes.set_xlabel("TruthLens")
    axes.set_ylabel("label")
    axes.set_title("Confusion matrix")
    encoded = _png(figure)
    plt.close(figure)
    return encoded


def scores_png(scores: list[tuple[float, bool]], threshold: float | None) -> str:
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(6, 3.6))
    bins = [i / 20 for i in range(21)]
    for label, name, colour in ((False, "faithful", "#2b8a3e"), (True, "hallucinated", "#c92a2a")):
        values = [s for s, lab in scores if lab is label]
        if values:
            axes.hist(values, bins=bins, alpha=0.6, label=f"{name} ({len(values)})", color=colour)
    if threshold is not None:
        axes.axvline(threshold, color="black", linestyle="--", label=f"threshold {threshold:g}")
    axes.set_xlim(0, 1)
    axes.set_xlabel("hallucination score")
    axes.set_ylabel("rows")
    axes.set_title("Score distribution by label")
    axes.legend()
    encoded = _png(figure)
    plt.close(figure)
    return encoded


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def write_report(path: Path, summary: Summary, source: str, threshold: float | None) -> None:
    confusion = summary.confusion
    if confusion is None:
        raise ValueError("the rows carry no labels")
    figures = [
        ("Balanced accuracy", _fmt(confusion.balanced_accuracy)),
        ("Precision (hallucinated)", _fmt(confusion.precision)),
        ("Recall (hallucinated)", _fmt(confusion.recall)),
        ("Labelled rows scored", f"{confusion.scored} ({confusion.unscored} without a verdict)"),
        ("Rows", str(summary.rows)),
        ("Cost (USD)", f"{summary.cost_usd:.6f}"),
        ("Latency p50 / p95 (ms)", f"{_fmt(summary.p50_ms)} / {_fmt(summary.p95_ms)}"),
    ]
    outcomes = "".join(
        f"<tr><td>{html.escape(name)}</td><td>{count}</td></tr>"
        for name, count in summary.by_outcome.most_common()
    )
    table = "".join(f"<tr><th>{html.escape(k)}</th><td>{v}</td></tr>" for k, v in figures)
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>TruthLens batch report</title>
<style>body{{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem}}
table{{border-collapse:collapse;margin:1rem 0}}th,td{{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}}
img{{max-width:100%}}</style></head><body>
<h1>TruthLens batch report</h1>
<p>Input: <code>{html.escape(source)}</code></p>
<table>{table}</table>
<h2>Verdicts</h2><table><tr><th>outcome</th><th>rows</th></tr>{outcomes}</table>
<h2>Confusion matrix</h2>
<img alt="confusion matrix" src="data:image/png;base64,{confusion_png(confusion)}">
<h2>Score distribution</h2>
<img alt="score distribution" src="data:image/png;base64,{scores_png(summary.scores, threshold)}">
</body></html>
"""
    path.write_text(page, encoding="utf-8")
