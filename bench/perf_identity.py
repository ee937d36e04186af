"""Performance changes must not change a single result: record, then compare, every field.

    python bench/perf_identity.py --record /tmp/identity_before.json
    python bench/perf_identity.py --compare /tmp/identity_before.json

Runs a fixed set of inputs through `engine.verify_groups` (what the detect worker calls),
in micro-batches of 8, for the default policy (dtype `auto`) and for `evidence: selected`
int8: the first 40 rows of `bench/cases/customer_style.jsonl`, 10 of
`customer_style_g.jsonl`, and 8 of the saturation bench's 1k-token `begin/dev.jsonl`
examples. Each result is the whole `DetectionResult` (score, spans, labels, reasons,
evidence, verdict, token probabilities, coverage, signals); `--compare` fails on any difference.
One torch thread, so that the arithmetic is the same from run to run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

VARIANTS = ("default", "selected:int8")


def inputs() -> list[Any]:
    from bench.customer_cases import load_cases
    from bench.throughput import saturation_inputs
    from engine import DetectionInput

    items = []
    for name, n in (("customer_style.jsonl", 40), ("customer_style_g.jsonl", 10)):
        for c in load_cases(ROOT / "bench" / "cases" / name)[:n]:
            items.append(DetectionInput.build(c["context"], c["response"], c["query"]))
    data = Path(os.environ.get("TRUTHLENS_DATA_DIR", ROOT.parent / "shared" / "data"))
    args = argparse.Namespace(
        file=str(data / "begin" / "dev.jsonl"), jobs=8, context_tokens=1024, answer_tokens=150
    )
    return items + saturation_inputs(args)


def run(items: list[Any]) -> dict[str, list[dict[str, Any]]]:
    from dataclasses import asdict

    import torch

    from bench.worker_profile import variant_config
    from engine import load_detector, verify_groups

    torch.set_num_threads(1)
    out = {}
    for variant in VARIANTS:
        evidence, _, dtype = variant.partition(":")
        config = variant_config(evidence)
        detector = load_detector("embedded", dtype=dtype or "auto")
        rows = []
        for i in range(0, len(items), 8):
            (results,) = verify_groups([(items[i : i + 8], config)], detector)
            rows += [json.loads(json.dumps(asdict(r))) for r in results]
        out[variant] = rows
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--record", help="write the results here")
    what.add_argument("--compare", help="compare with the results recorded here")
    args = parser.parse_args()
    results = run(inputs())
    if args.record:
        Path(args.record).write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
        print(f"recorded {sum(len(v) for v in results.values())} results in {args.record}")
        return 0
    before = json.loads(Path(args.compare).read_text())
    bad = 0
    for variant, rows in results.items():
        for i, (old, new) in enumerate(zip(before[variant], rows, strict=True)):
            if old != new:
                bad += 1
                keys = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
                print(f"DIFFERENT {variant} #{i}: {keys}")
    total = sum(len(v) for v in results.values())
    print(f"{total - bad} of {total} results identical")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
