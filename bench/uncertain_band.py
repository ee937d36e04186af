"""Fit the default uncertainty band on the development sets' scores.

    python bench/customer_cases.py --cases bench/cases/<set>.jsonl --json /tmp/<set>.json  # each dev set
    python bench/uncertain_band.py /tmp/customer_style.json /tmp/customer_style_h.json ...

Reads the per-case results `bench/customer_cases.py --json` writes (with the cases
file named in them or passed as `--cases`), and for every band `[t - below, t + above)`
around the threshold `t` on a 0.05 grid prints the share of answers it leaves decided
and the balanced accuracy of the decided ones, averaged over the sets. A band is
eligible when it keeps at least `--min-coverage` of every set decided; the widest gain
per answer set aside wins. Answers carrying a contradiction are never uncertain.
Development sets only: never the held-out sets or the evaluation files.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.customer_cases import load_cases
from bench.metrics import example_metrics

GRID = [round(0.05 * k, 2) for k in range(0, 7)]


def decided_accuracy(
    rows: list[tuple[int, float, bool]], below: float, above: float, threshold: float = 0.5
) -> tuple[float, float]:
    """(coverage, balanced accuracy of the decided) for rows (label, score, contradiction)."""
    kept = [
        (y, s)
        for y, s, contradiction in rows
        if contradiction or not (threshold - below <= s < threshold + above)
    ]
    labels = [y for y, _ in kept]
    if len(set(labels)) < 2:
        return len(kept) / len(rows), float("nan")
    m = example_metrics(labels, [1.0 if s >= threshold else 0.0 for _, s in kept], 0.5)
    return len(kept) / len(rows), m.balanced_accuracy


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("results", nargs="+", type=Path)
    p.add_argument("--cases-dir", type=Path, default=Path(__file__).parent / "cases")
    p.add_argument("--min-coverage", type=float, default=0.75)
    args = p.parse_args(argv)
    sets = []
    for path in args.results:
        name = path.stem.removeprefix("dev_")
        cases = load_cases(args.cases_dir / f"{name}.jsonl")
        results = json.loads(path.read_text())["results"]
        sets.append(
            [
                (c["label"], r["score"] or 0.0, "contradiction" in r.get("labels", []))
                for c, r in zip(cases, results, strict=True)
            ]
        )
    base = sum(decided_accuracy(rows, 0, 0)[1] for rows in sets) / len(sets)
    print(f"no band: mean balanced accuracy {base:.4f}")
    best = (0.0, 0.0, base, 1.0)
    for below in GRID:
        for above in GRID:
            figures = [decided_accuracy(rows, below, above) for rows in sets]
            coverage = min(c for c, _ in figures)
            accuracy = sum(a for _, a in figures) / len(figures)
            print(f"below {below:.2f} above {above:.2f}: min coverage {coverage:.3f}, "
                  f"mean balanced accuracy of the decided {accuracy:.4f}")  # fmt: skip
            if coverage >= args.min_coverage and accuracy > best[2]:
                best = (below, above, accuracy, coverage)
    print(
        f"chosen: below {best[0]:.2f}, above {best[1]:.2f} (mean balanced accuracy of the "
        f"decided {best[2]:.4f}, every set at least {best[3]:.3f} decided)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
