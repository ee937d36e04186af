"""`python -m engine.train.combiner`: fit the default detector's combiner.

    python -m engine.train.combiner --cache /tmp/signals.jsonl
        # -> engine/weights/default/combiner.json

The combiner (`scoring/combiner.py`) reads every answer-level signal of
`scoring/signals.py` and gives one probability. It is fitted on:

* the held-out dev splits of every training source (`sources/`, rows the token
  model never trained on) and the human labels of the training files
  (`begin/dev.jsonl`, `faithdial_audit/test.jsonl`);
* the customer-style DEVELOPMENT sets (`bench/cases/customer_style{,_g,_h,_k,_m,_r}.jsonl`),
  whose faithful answers paraphrase and work values out as customers' do.

Never an evaluation file, and never the held-out customer-style sets (n, p, q, s, t).
Each source weighs the same in total and each class within it the same. The fit is
a convex, L2-regularised logistic regression with sign constraints (`SIGN`).

It prints a leave-one-set-out report first: for each customer-style development set,
the combiner fitted without that set against the shipped score, in AUROC and in
balanced accuracy at the threshold. The threshold is then chosen on the development
sets (the mean balanced accuracy over them) and folded into the intercept, so that
0.5 stays the policy's default threshold. A reliability table is printed and stored.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from ..scoring.combiner import COMBINER_FILE, Combiner
from ..scoring.signals import SIGNALS
from .head import load_rows, source_rows
from .logistic import Bound, fit_standardised

#: +1: evidence of a hallucination (weight >= 0); -1: evidence of support (<= 0); 0: free.
SIGN = {
    "head_prob": 1, "model_max": 1, "model_top3": 1, "lexical_max": 1,
    "unsupported_share": 1, "content_words_log": 0, "value_match": -1,
    "value_absent": 1, "value_conflict": 1, "clause_conflict": 1, "contradiction": 1,
    "unsupported_max": 1, "span_share": 1, "lex_min": -1, "lex_mean": -1, "sim_min": -1,
    "sim_mean": -1, "novel_numbers": 1, "novel_names": 1, "negation_mismatch": 1,
}  # fmt: skip
DEV_SETS = ("customer_style", "customer_style_g", "customer_style_h", "customer_style_k",
            "customer_style_m", "customer_style_r")  # fmt: skip
L2 = 3e-2
#: Rows per training source (the dev splits are larger; a sample keeps the run short).
PER_SOURCE = 150


def customer_rows(cases_dir: Path, name: str) -> list[dict[str, Any]]:
    rows = []
    for line in (cases_dir / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            c = json.loads(line)
            rows.append({"context": list(c["context"]), "query": c.get("query"),
                         "response": c["response"], "label": int(c["label"]), "source": name})  # fmt: skip
    return rows


def training_rows(data_dir: Path, per_source: int = PER_SOURCE) -> list[dict[str, Any]]:
    import random

    rows: list[dict[str, Any]] = [
        {"context": r.items(), "query": r.question, "response": r.answer, "label": r.label,
         "source": r.source}
        for r in load_rows(data_dir) + source_rows(data_dir)
    ]  # fmt: skip
    by_source: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_source.setdefault(row["source"], []).append(row)
    out = []
    for name, items in sorted(by_source.items()):
        if len(items) > per_source:
            items = random.Random(f"combiner:{name}").sample(items, per_source)
        out.extend(items)
    return out


def collect(
    rows: list[dict[str, Any]], detector_spec: str = "embedded", batch: int = 16
) -> list[dict[str, Any]]:
    """Each row with its pipeline `signals` and shipped `score` (the default policy's
    detection settings, the combiner switched off)."""
    from dataclasses import replace

    from ..detectors.registry import load_detector
    from ..job_plan import detection_config
    from ..pipeline import verify_batch
    from ..policy import PolicyDocument
    from ..types import DetectionInput

    detector = load_detector(detector_spec)
    saved = getattr(detector, "combiner", None)
    detector.combiner = None  # type: ignore[attr-defined]
    config = replace(detection_config(PolicyDocument(), PolicyDocument().threshold), signals=True)
    out = []
    try:
        for b in range(0, len(rows), batch):
            chunk = rows[b : b + batch]
            items = [DetectionInput.build(r["context"], r["response"], r["query"]) for r in chunk]
            for r, res in zip(chunk, verify_batch(items, config, detector), strict=True):
                if res.status != "verified" or not res.signals:
                    continue
                out.append(r | {"signals": res.signals, "score": res.score})
            print(f"  {b + len(chunk)}/{len(rows)}", flush=True)
    finally:
        detector.combiner = saved  # type: ignore[attr-defined]
    return out


def weights_for(rows: list[dict[str, Any]]) -> np.ndarray:
    counts = Counter((r["source"], r["label"]) for r in rows)
    sources = Counter(r["source"] for r in rows)
    w = []
    for r in rows:
        classes = sum(1 for (s, _) in counts if s == r["source"])
        w.append(len(rows) / (len(sources) * classes * counts[(r["source"], r["label"])]))
    return np.asarray(w)


def fit(rows: list[dict[str, Any]], features: tuple[str, ...] = SIGNALS) -> Combiner:
    x = np.asarray([[r["signals"][f] for f in features] for r in rows], dtype=np.float64)
    y = np.asarray([r["label"] for r in rows], dtype=np.float64)
    sw = weights_for(rows)
    bounds: list[Bound] = [
        {1: (0.0, None), -1: (None, 0.0), 0: (None, None)}[SIGN[f]] for f in features
    ]
    return fit_standardised(Combiner, x, y, sw, bounds, L2, features)


def _metrics(y: np.ndarray, s: np.ndarray, threshold: float = 0.5) -> tuple[float, float]:
    from sklearn.metrics import balanced_accuracy_score, roc_auc_score

    auroc = float(roc_auc_score(y, s)) if len(set(y)) > 1 else float("nan")
    bacc = float(balanced_accuracy_score(y, (s >= threshold).astype(int)))
    return round(auroc, 4), round(bacc, 4)


def scores(model: Combiner, rows: list[dict[str, Any]]) -> np.ndarray:
    # the pipeline's floor: a contradiction keeps the score at or above CONFLICT_FLOOR
    from ..scoring.typed_checks import CONFLICT_FLOOR

    return np.asarray(
        [
            max(model.probability(r["signals"]), CONFLICT_FLOOR * r["signals"]["contradiction"])
            for r in rows
        ]
    )


def best_threshold(model: Combiner, dev: list[dict[str, Any]]) -> float:
    """The threshold with the best mean balanced accuracy over the development sets."""
    sets = sorted({r["source"] for r in dev})
    grid = np.round(np.arange(0.2, 0.81, 0.01), 2)
    per = {s: [r for r in dev if r["source"] == s] for s in sets}
    mean_bacc = []
    for t in grid:
        vals = []
        for s in sets:
            y = np.asarray([r["label"] for r in per[s]])
            vals.append(_metrics(y, scores(model, per[s]), float(t))[1])
        mean_bacc.append(float(np.mean(vals)))
    return float(grid[int(np.argmax(mean_bacc))])


def shifted(model: Combiner, threshold: float) -> Combiner:
    """The same model with `threshold` moved onto 0.5 (the intercept absorbs it)."""
    from dataclasses import replace

    logit = float(np.log(threshold / (1 - threshold)))
    return replace(model, bias=round(model.bias - logit, 8))


def reliability(
    model: Combiner, rows: list[dict[str, Any]], bins: int = 10
) -> list[dict[str, Any]]:
    s = scores(model, rows)
    y = np.asarray([r["label"] for r in rows])
    out = []
    for i in range(bins):
        sel = (s >= i / bins) & ((s < (i + 1) / bins) if i < bins - 1 else (s <= 1))
        if sel.any():
            out.append({"bin": f"{i / bins:.1f}-{(i + 1) / bins:.1f}", "n": int(sel.sum()),
                        "mean_score": round(float(s[sel].mean()), 3),
                        "hallucinated": round(float(y[sel].mean()), 3)})  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    repo = Path(__file__).resolve().parents[2]
    p = argparse.ArgumentParser(prog="python -m engine.train.combiner")
    p.add_argument("--data-dir", type=Path,
                   default=Path(os.environ.get("TRUTHLENS_DATA_DIR", repo.parent / "shared" / "data")))  # fmt: skip
    p.add_argument("--cases-dir", type=Path, default=repo / "bench" / "cases")
    p.add_argument("--out", type=Path, default=repo / "engine/weights/default")
    p.add_argument("--cache", type=Path, default=None, help="signals rows (reused when present)")
    p.add_argument("--per-source", type=int, default=PER_SOURCE)
    p.add_argument("--features", default=",".join(SIGNALS))
    p.add_argument("--collect", choices=("all", "development", "training"), default="all",
                   help="collect only these rows into --cache, then stop (parallel runs)")  # fmt: skip
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--dry-run", action="store_true", help="report only; write nothing")
    args = p.parse_args(argv)
    started = time.time()
    import torch

    torch.set_num_threads(args.threads)
    if args.cache is not None and args.cache.is_file():
        rows = [json.loads(x) for x in args.cache.read_text().splitlines() if x]
    else:
        raw = []
        if args.collect in ("all", "development"):
            raw += [r for name in DEV_SETS for r in customer_rows(args.cases_dir, name)]
        if args.collect in ("all", "training"):
            raw += training_rows(args.data_dir, args.per_source)
        rows = collect(raw)
        if args.cache is not None:
            args.cache.write_text("".join(json.dumps(r) + "\n" for r in rows))
        if args.collect != "all":
            return 0
    features = tuple(f for f in args.features.split(",") if f)
    dev = [r for r in rows if r["source"] in DEV_SETS]
    print(
        f"rows={len(rows)} development={len(dev)} sources={sorted(Counter(r['source'] for r in rows).items())}"
    )
    report = {}
    for held in DEV_SETS:
        train = [r for r in rows if r["source"] != held]
        test = [r for r in rows if r["source"] == held]
        model = fit(train, features)
        model = shifted(model, best_threshold(model, [r for r in train if r["source"] in DEV_SETS]))
        y = np.asarray([r["label"] for r in test])
        shipped = np.asarray([r["score"] for r in test])
        report[held] = {
            "combiner": _metrics(y, scores(model, test)),
            "shipped": _metrics(y, shipped),
        }
        print(
            f"{held:20s} combiner auroc/bacc {report[held]['combiner']}  shipped {report[held]['shipped']}"
        )
    mean = {
        k: round(float(np.mean([report[s][k][1] for s in DEV_SETS])), 4)
        for k in ("combiner", "shipped")
    }
    print(f"leave-one-set-out mean balanced accuracy: {mean}")
    model = fit(rows, features)
    threshold = best_threshold(model, dev)
    model = shifted(model, threshold)
    table = reliability(model, dev)
    meta = {"threshold_fitted": threshold, "rows": len(rows), "development_sets": list(DEV_SETS),
            "sources": sorted({r["source"] for r in rows}), "l2": L2,
            "leave_one_set_out": report, "leave_one_set_out_mean_bacc": mean,
            "reliability_development": table}  # fmt: skip
    from dataclasses import replace

    model = replace(model, meta=meta)
    print("weights:", dict(zip(features, model.weights, strict=True)), "bias:", model.bias)
    print("threshold on development sets:", threshold)
    for row in table:
        print("reliability", row)
    if not args.dry_run:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / COMBINER_FILE).write_text(model.to_json())
        print(f"saved {args.out / COMBINER_FILE}")
    print(f"({time.time() - started:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
