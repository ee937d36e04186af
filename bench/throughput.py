"""Detector throughput and latency by batch size, and the worker's memory.

    python bench/throughput.py [--detector embedded] [--batch-sizes 1,8,16] [--n 64]

Inputs are real (context, answer) pairs from a TRAINING file of the shared
data (throughput does not depend on labels, and the evaluation sets stay
untouched), cycled to `--n` examples. Prints examples/s, p50/p95 latency per
batch, process RSS and, on CUDA, peak GPU memory: the figures the sizing
table of docs/operations.md asks for.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.metrics import percentile  # noqa: E402
from verification.engine.detectors.registry import load_detector  # noqa: E402
from verification.engine.types import DetectionInput  # noqa: E402


def load_inputs(path: Path, n: int) -> list[DetectionInput]:
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            raw = json.loads(line)
            passages = [p for p in raw["context"].split("\n\n") if p.strip()]
            rows.append(DetectionInput.build(passages, raw["answer"], raw.get("question")))
            if len(rows) >= n:
                break
    return [rows[i % len(rows)] for i in range(n)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--detector", default="embedded")
    parser.add_argument("--batch-sizes", default="1,8,16")
    parser.add_argument("--n", type=int, default=64)
    parser.add_argument(
        "--file",
        default=str(
            Path(os.environ.get("TRUTHLENS_DATA_DIR", ROOT.parent / "shared" / "data"))
            / "begin"
            / "dev.jsonl"
        ),
    )
    args = parser.parse_args()
    started = time.perf_counter()
    detector = load_detector(args.detector)
    print(f"detector {detector.name} loaded in {time.perf_counter() - started:.1f} s")
    items = load_inputs(Path(args.file), args.n)
    detector.predict(items[:2])  # warm-up: first-call allocations are not throughput
    try:
        import torch

        cuda = torch.cuda.is_available()
        if cuda:
            torch.cuda.reset_peak_memory_stats()
    except ImportError:
        cuda = False
    for size in [int(s) for s in args.batch_sizes.split(",")]:
        latencies = []
        total = time.perf_counter()
        for i in range(0, len(items), size):
            t0 = time.perf_counter()
            detector.predict(items[i : i + size])
            latencies.append((time.perf_counter() - t0) * 1000)
        elapsed = time.perf_counter() - total
        print(
            f"batch {size:>3}: {len(items) / elapsed:7.2f} ex/s | per batch p50 "
            f"{statistics.median(latencies):8.1f} ms  p95 {percentile(latencies, 0.95):8.1f} ms"
        )
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {rss_mb:.0f} MB")
    if cuda:
        import torch

        print(f"peak GPU memory {torch.cuda.max_memory_allocated() / 2**20:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
