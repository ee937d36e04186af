"""Cost that grows with the answer: p50 of one verification through the pipeline.

    python bench/answer_cost.py [--sizes 1024,4096,16384,65536] [--n 5] [--all-up-to 4096]
                                [--dtype float32,bfloat16]

A 150-token answer against contexts of about `--sizes` MiniLM tokens, built as
`bench/detector_speed.py` builds them (passages of the TRAINING file `begin/dev.jsonl`;
the answer mixes sentences of the context with one from elsewhere). Each example goes
through `pipeline.verify` with the default policy, its `evidence` set to "selected"
(the sentences aligned with the answer), batch 1, embedded detector, so the
figure includes evidence selection, the typed checks and the explanations, as a worker
runs them. `evidence: all` (the whole context, the default) is timed too for contexts up to
`--all-up-to` tokens (beyond that it takes seconds per example). Prints p50 and p95 per
size and the share of the context the detector read, for the whole pipeline and for the
detector stage alone (evidence selection plus `detector.predict`, the figure
`bench/detector_speed.py` gives for the whole context).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.accuracy import selected  # noqa: E402
from bench.detector_speed import DATA_FILE, make_inputs  # noqa: E402
from bench.metrics import percentile  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--sizes", default="1024,4096,16384,65536")
    p.add_argument("--n", type=int, default=5, help="examples per size (after one warm-up)")
    p.add_argument("--answer-tokens", type=int, default=150)
    p.add_argument("--all-up-to", type=int, default=4096)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--data-file", type=Path, default=DATA_FILE)
    p.add_argument(
        "--dtype", default=None,
        help="the embedded detector's arithmetic (TRUTHLENS_DETECTOR_DTYPE; default: auto): "
        "float32, bfloat16 or int8, or several separated by commas (float32,bfloat16): "
        "then each example runs through each in turn, so all share the machine's load",
    )  # fmt: skip
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    dtypes = args.dtype.split(",") if args.dtype else [None]
    for dtype in dtypes:
        if dtype not in (None, "float32", "bfloat16", "int8"):
            p.error(f"--dtype: float32, bfloat16 or int8, not {dtype!r}")

    import torch
    from transformers import AutoTokenizer

    from engine import PolicyDocument, base_model_path, detection_config, load_detector, verify

    torch.set_num_threads(args.threads)
    tokenizer = AutoTokenizer.from_pretrained(str(base_model_path()), local_files_only=True)
    detectors = [load_detector("embedded", dtype=dtype) for dtype in dtypes]
    names = [d.name for d in detectors]
    load_start = os.getloadavg()
    print(f"detectors {', '.join(names)}; {args.threads} threads; load average {load_start}")
    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        items = make_inputs(tokenizer, args.data_file, args.n + 1, size, args.answer_tokens, 7)
        for evidence in ("selected", "all"):
            if evidence == "all" and size > args.all_up_to:
                continue
            policy = PolicyDocument(evidence=evidence)
            config = detection_config(policy, policy.threshold)
            times: list[list[float]] = [[] for _ in detectors]
            stage: list[list[float]] = [[] for _ in detectors]
            stage_cpu: list[list[float]] = [[] for _ in detectors]
            read: list[list[float]] = [[] for _ in detectors]
            for detector in detectors:
                verify(items[0], config, detector)  # warm-up
            for item in items[1:]:
                for k, detector in enumerate(detectors):  # in turn, example by example
                    start = time.perf_counter()
                    result = verify(item, config, detector)
                    times[k].append((time.perf_counter() - start) * 1000)
                    start, cpu = time.perf_counter(), time.process_time()
                    detector.predict([selected(item) if evidence == "selected" else item])
                    stage[k].append((time.perf_counter() - start) * 1000)
                    stage_cpu[k].append((time.process_time() - cpu) * 1000)
                    cov = result.coverage
                    if cov is not None and cov.context_chars_given:
                        read[k].append(cov.context_chars_checked / cov.context_chars_given)
            for k, name in enumerate(names):
                row = {
                    "detector": name,
                    "context_tokens": size,
                    "evidence": evidence,
                    "n": len(times[k]),
                    "p50_ms": round(statistics.median(times[k]), 1),
                    "p95_ms": round(percentile(times[k], 95), 1),
                    "context_read": round(statistics.mean(read[k]), 3) if read[k] else None,
                    "detector_p50_ms": round(statistics.median(stage[k]), 1),
                    # CPU time of this process (all its threads): less sensitive to other
                    # processes on the machine than the wall clock
                    "detector_cpu_p50_ms": round(statistics.median(stage_cpu[k]), 1),
                }
                if k:  # against the first, example by example
                    ratios = [a / b for a, b in zip(stage[0], stage[k], strict=True)]
                    row["detector_speedup_vs_first_p50"] = round(statistics.median(ratios), 2)
                    ratios = [a / b for a, b in zip(stage_cpu[0], stage_cpu[k], strict=True)]
                    row["detector_cpu_speedup_vs_first_p50"] = round(statistics.median(ratios), 2)
                rows.append(row)
                speedup = row.get("detector_speedup_vs_first_p50")
                cpu_speedup = row.get("detector_cpu_speedup_vs_first_p50")
                print(
                    f"{name:<24} context {size:>6} tokens  evidence {evidence:<8}"
                    f"  p50 {row['p50_ms']:>8.1f} ms  p95 {row['p95_ms']:>8.1f} ms"
                    f"  read {row['context_read']}"
                    f"  | detector stage p50 {row['detector_p50_ms']:>8.1f} ms"
                    f" (CPU {row['detector_cpu_p50_ms']:>8.1f} ms)"
                    + (f"; {speedup}x the first, CPU {cpu_speedup}x" if speedup else ""),
                    flush=True,
                )
    load_end = os.getloadavg()
    print(f"load average at the end {load_end}")
    if args.json:
        out = {
            "detectors": names,
            "threads": args.threads,
            "load_average_start": load_start,
            "load_average_end": load_end,
            "rows": rows,
        }
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
