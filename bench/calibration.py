"""Calibration from a tenant's labels, simulated: does fitting the threshold on 100 labelled
answers beat the default threshold on the tenant's other answers, and never hurt?

    python bench/calibration.py                 # score once (cached), then 20 seeds
    python bench/calibration.py --seeds 20 --methods threshold,isotonic

Tenants: the customer-style development sets together (`bench/cases/customer_style*.jsonl`
except the held-out `_n`), and, as tenants of other domains, evenly spaced rows of the
evaluation files in shared/data (LFQA: QA over retrieved documents; BEGIN/WoW: dialogue;
FaithBench: summaries). Each answer is scored ONCE by the default detector under the default
policy, and cached in `bench/results/calibration_scores.json` (the embedded detector is slow
on two shared CPU cores); the seeds then run on the cached scores.

Per seed and tenant: 100 answers drawn at random are "labelled"; `quality.calibration.propose`
fits on them (5-fold out-of-fold check against the default policy's decisions, refusing
anything that is not a clear gain); the rest are measured, with the proposal when one was
made and the default decisions when it was refused. Prints the mean, standard deviation and
worst balanced-accuracy gain over the default, how many of the seeds adopted, and each
tenant's default and best-possible (oracle threshold) balanced accuracy.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from quality.calibration import Refused, propose  # noqa: E402

CACHE = ROOT / "bench" / "results" / "calibration_scores.json"
DATA = Path(os.environ.get("TRUTHLENS_DATA_DIR", ROOT.parent / "shared" / "data"))
CUSTOMER_SETS = ("", "_g", "_h", "_k", "_m", "_p", "_q", "_r")  # _n is held out
OTHER_DOMAINS = {  # tenant -> (file, rows)
    "begin_wow": ("begin/test_wow_only.jsonl", 300),
    "lfqa": ("lfqa_verification/test.jsonl", 150),
    "faithbench": ("faithbench/test.jsonl", 150),
}
LABELLED = 100


def _customer_rows() -> list[tuple[list[str], str, str, int]]:
    rows = []
    for suffix in CUSTOMER_SETS:
        path = ROOT / "bench" / "cases" / f"customer_style{suffix}.jsonl"
        for line in path.read_text(encoding="utf-8").splitlines():
            c = json.loads(line)
            rows.append((c["context"], c["query"], c["response"], int(c["label"])))
    return rows


def _file_rows(name: str, limit: int) -> list[tuple[list[str], str, str, int]]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    picked = [lines[i * len(lines) // limit] for i in range(min(limit, len(lines)))]
    rows = []
    for line in picked:
        raw = json.loads(line)
        passages = [p for p in raw["context"].split("\n\n") if p.strip()]
        rows.append((passages, raw.get("question") or "", raw["answer"], int(raw["label"])))
    return rows


def _score(rows, detector, batch: int = 8) -> list[dict]:
    from engine import DetectionInput, PolicyDocument, detection_config, verify_batch

    policy = PolicyDocument()
    config = detection_config(policy, policy.threshold)
    out = []
    for i in range(0, len(rows), batch):
        chunk = rows[i : i + batch]
        items = [DetectionInput.build(c, r, q or None) for c, q, r, _ in chunk]
        for (_, _, _, label), res in zip(chunk, verify_batch(items, config, detector), strict=True):
            out.append(
                {"label": label, "score": res.score or 0.0, "detected": int(bool(res.detected))}
            )
        print(f"  {i + len(chunk)}/{len(rows)}", file=sys.stderr, flush=True)
    return out


def load_scores(tenants: list[str], detector_spec: str) -> dict[str, list[dict]]:
    cache = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    detector = None
    for tenant in tenants:
        key = f"{tenant}:{detector_spec}"
        if key in cache:
            continue
        if detector is None:
            from engine import load_detector

            detector = load_detector(detector_spec)
        rows = _customer_rows() if tenant == "customer" else _file_rows(*OTHER_DOMAINS[tenant])
        started = time.time()
        print(f"scoring {tenant} ({len(rows)} answers) with {detector_spec}", file=sys.stderr)
        cache[key] = _score(rows, detector)
        print(f"  {time.time() - started:.0f} s", file=sys.stderr)
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        CACHE.write_text(json.dumps(cache))
    return {t: cache[f"{t}:{detector_spec}"] for t in tenants}


def _ba(y: np.ndarray, p: np.ndarray) -> float:
    tpr = float(np.mean(p[y == 1])) if np.any(y == 1) else 0.0
    tnr = float(np.mean(1 - p[y == 0])) if np.any(y == 0) else 0.0
    return (tpr + tnr) / 2


def simulate(rows: list[dict], method: str, seeds: int) -> dict:
    s = np.array([r["score"] for r in rows])
    y = np.array([r["label"] for r in rows])
    default = np.array([r["detected"] for r in rows])
    gains, adopted = [], 0
    for seed in range(seeds):
        order = np.random.default_rng(seed).permutation(len(rows))
        lab, rest = order[:LABELLED], order[LABELLED:]
        try:
            proposal = propose(s[lab], y[lab], default[lab], method=method, seed=seed)
        except Refused:
            gains.append(0.0)
            continue
        adopted += 1
        gains.append(_ba(y[rest], proposal.fit.predict(s[rest])) - _ba(y[rest], default[rest]))
    oracle = max(_ba(y, (s >= t).astype(int)) for t in np.unique(np.append(s, 1.01)))
    return {
        "n": len(rows),
        "default_ba": _ba(y, default),
        "oracle_ba": oracle,
        "mean_gain": statistics.mean(gains),
        "sd_gain": statistics.pstdev(gains),
        "worst_gain": min(gains),
        "best_gain": max(gains),
        "adopted": adopted,
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--tenants", default="customer," + ",".join(OTHER_DOMAINS))
    p.add_argument("--methods", default="threshold,isotonic,platt")
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--detector", default="embedded")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads while scoring")
    args = p.parse_args(argv)
    try:
        import torch

        torch.set_num_threads(args.threads)
    except ImportError:
        pass
    tenants = args.tenants.split(",")
    scores = load_scores(tenants, args.detector)
    print(f"{args.seeds} seeds, {LABELLED} labelled answers per tenant, detector {args.detector}")
    print(f"{'tenant':<12}{'method':<10}{'n':>5}{'default':>9}{'oracle':>8}"
          f"{'gain mean':>11}{'sd':>7}{'worst':>8}{'best':>7}{'adopted':>9}")  # fmt: skip
    for tenant in tenants:
        for method in args.methods.split(","):
            r = simulate(scores[tenant], method, args.seeds)
            print(
                f"{tenant:<12}{method:<10}{r['n']:>5}{r['default_ba']:>9.3f}{r['oracle_ba']:>8.3f}"
                f"{r['mean_gain']:>+11.3f}{r['sd_gain']:>7.3f}{r['worst_gain']:>+8.3f}"
                f"{r['best_gain']:>+7.3f}{r['adopted']:>6}/{args.seeds}"
            )


if __name__ == "__main__":
    main()
