"""`python -m verification.engine.train.head`: fit the response head of the default detector.

    python -m verification.engine.train.head                  # -> models/default/response_head.json
    python -m verification.engine.train.head --limit 200 --out /tmp/m   # smoke run

The head (`detectors/response_head.py`) turns the ensemble's token
probabilities into one example-level probability. It is fitted on the
HUMAN response-level labels of the training sets (`begin/dev.jsonl`,
`faithdial_audit/test.jsonl`; real hallucinations, not perturbations),
never on an evaluation set. Rows are split by a hash of their context
into fit/dev (25 % dev) to report how the head ranks unseen contexts next
to span-max; the shipped head is then refitted on all rows. Fitting is a
deterministic convex problem (class-balanced logistic loss, small L2,
non-negative weights on the probability features, L-BFGS-B), so the same
data and model give the same head.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ..detectors import embedded
from ..detectors.response_head import FEATURES, HEAD_FILE, ResponseHead, response_features
from .datagen import TRAINING_FILES, file_sha256

FREE_SIGN = ("content_words_log",)  # length may push either way; the rest are monotone
L2 = 1e-2
DEV_PERCENT = 25


@dataclass
class Row:
    context: str
    question: str | None
    answer: str
    label: int


def load_rows(data_dir: Path, files: tuple[str, ...] = TRAINING_FILES) -> list[Row]:
    rows = []
    for name in files:
        with open(data_dir / name, encoding="utf-8") as fh:
            for line in fh:
                raw = json.loads(line)
                if raw["context"].strip() and raw["answer"].strip():
                    q = raw.get("question") or None
                    rows.append(Row(raw["context"], q, raw["answer"], int(raw["label"])))
    return rows


def is_dev(context: str, percent: int = DEV_PERCENT) -> bool:
    digest = hashlib.sha256(context.strip().encode()).digest()
    return int.from_bytes(digest[:4], "big") % 100 < percent


def featurize(rows: list[Row], model_dir: Path, batch_size: int = 32) -> tuple[np.ndarray, list]:
    """(feature matrix in `FEATURES` order, span-max of the equal-weight ensemble per row)."""
    from ..detectors.ensemble import combine
    from ..detectors.lexical import LexicalDetector
    from ..types import DetectionInput

    model = embedded.EmbeddedDetector(model_dir, device="cpu")
    lexical = LexicalDetector()
    feats, span_max = [], []
    for b in range(0, len(rows), batch_size):
        chunk = rows[b : b + batch_size]
        items = [
            DetectionInput.build(
                [p for p in r.context.split("\n\n") if p.strip()], r.answer, r.question
            )
            for r in chunk
        ]
        learned = model.predict(items)
        grounded = lexical.predict(items)
        for item, a, g in zip(items, learned, grounded, strict=True):
            f = response_features(item.response, a.tokens, g.tokens)
            feats.append([f[name] for name in FEATURES])
            combined = combine(a, g)  # the equal-weight ensemble without a head
            span_max.append(max((t.prob for t in combined.tokens), default=0.0))
        if b % (batch_size * 20) == 0:
            print(f"  featurized {b + len(chunk)}/{len(rows)}", flush=True)
    return np.asarray(feats, dtype=np.float64), span_max


def fit(x: np.ndarray, y: np.ndarray) -> ResponseHead:
    """Class-balanced, L2-regularised logistic regression with sign constraints."""
    from scipy.optimize import minimize

    mean = x.mean(0)
    scale = x.std(0)
    scale[scale < 1e-9] = 1.0
    z = (x - mean) / scale
    n, d = z.shape
    pos = y.sum()
    sample_w = np.where(y == 1, n / (2 * pos), n / (2 * (n - pos)))

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        logits = z @ w[:d] + w[d]
        p = 1.0 / (1.0 + np.exp(-logits))
        value = np.mean(sample_w * (np.logaddexp(0.0, logits) - y * logits))
        grad_logit = sample_w * (p - y) / n
        grad = np.append(z.T @ grad_logit + L2 * w[:d], grad_logit.sum())
        return float(value + L2 * np.sum(w[:d] ** 2) / 2), grad

    bounds = [(None, None) if f in FREE_SIGN else (0.0, None) for f in FEATURES] + [(None, None)]
    result = minimize(loss, np.zeros(d + 1), jac=True, method="L-BFGS-B", bounds=bounds)
    w = result.x
    return ResponseHead(
        features=FEATURES,
        mean=tuple(round(float(v), 8) for v in mean),
        scale=tuple(round(float(v), 8) for v in scale),
        weights=tuple(round(float(v), 8) for v in w[:d]),
        bias=round(float(w[d]), 8),
        low=tuple(round(float(v), 8) for v in x.min(0)),
        high=tuple(round(float(v), 8) for v in x.max(0)),
    )


def _auroc(y: np.ndarray, s: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    return round(float(roc_auc_score(y, s)), 4)


def _balanced_accuracy(y: np.ndarray, s: np.ndarray, threshold: float = 0.5) -> float:
    from sklearn.metrics import balanced_accuracy_score

    return round(float(balanced_accuracy_score(y, (s >= threshold).astype(y.dtype))), 4)


def main(argv: list[str] | None = None) -> int:
    repo_root = Path(__file__).resolve().parents[3]
    default_data = os.environ.get("TRUTHLENS_DATA_DIR", str(repo_root.parent / "shared" / "data"))
    p = argparse.ArgumentParser(
        prog="python -m verification.engine.train.head", description=__doc__
    )
    p.add_argument("--model-dir", type=Path, default=embedded.DEFAULT_MODEL_DIR)
    p.add_argument(
        "--out", type=Path, default=None, help="folder for the head (default: model dir)"
    )
    p.add_argument("--data-dir", type=Path, default=Path(default_data))
    p.add_argument("--limit", type=int, default=None, help="use N evenly spaced rows (smoke runs)")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)

    import torch

    torch.set_num_threads(args.threads)
    started = time.time()
    rows = load_rows(args.data_dir)
    if args.limit is not None and args.limit < len(rows):
        rows = [rows[i * len(rows) // args.limit] for i in range(args.limit)]
    print(f"rows={len(rows)} hallucinated={sum(r.label for r in rows)}")
    x, span_max = featurize(rows, args.model_dir)
    y = np.asarray([r.label for r in rows], dtype=np.float64)
    dev = np.asarray([is_dev(r.context) for r in rows])
    held_out = fit(x[~dev], y[~dev])
    dev_scores = np.asarray(
        [held_out.probability(dict(zip(FEATURES, f, strict=True))) for f in x[dev]]
    )
    metrics = {
        "fit_rows": int((~dev).sum()),
        "dev_rows": int(dev.sum()),
        "dev_auroc_head": _auroc(y[dev], dev_scores),
        "dev_auroc_span_max": _auroc(y[dev], np.asarray(span_max)[dev]),
        "dev_balanced_accuracy_head": _balanced_accuracy(y[dev], dev_scores),
        "dev_balanced_accuracy_span_max": _balanced_accuracy(y[dev], np.asarray(span_max)[dev]),
    }
    for i, name in enumerate(FEATURES):
        metrics[f"dev_auroc_{name}"] = _auroc(y[dev], x[dev][:, i])
    head = fit(x, y)
    head = replace(
        head,
        meta={
            "trained_on": {name: file_sha256(args.data_dir / name) for name in TRAINING_FILES},
            "rows": len(rows),
            "limit": args.limit,
            "model_weights_sha256": file_sha256(args.model_dir / embedded.WEIGHTS_FILE),
            "l2": L2,
            "metrics": metrics,
        },
    )
    out = args.out or args.model_dir
    out.mkdir(parents=True, exist_ok=True)
    (out / HEAD_FILE).write_text(head.to_json())
    for key, value in metrics.items():
        print(f"{key}: {value}")
    print("weights:", dict(zip(FEATURES, head.weights, strict=True)), "bias:", head.bias)
    print(f"saved {out / HEAD_FILE} ({time.time() - started:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
