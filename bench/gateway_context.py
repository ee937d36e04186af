"""Precision and recall of the gateway's implicit context extraction.

On tests/data/gateway_context.jsonl (built by bench/gateway_context_set.py), compares
the passages `find_context` extracts with the gold passages, as multisets of word
tokens (micro-averaged over all cases): precision = gold words among the extracted
ones, recall = extracted words among the gold ones. Also prints how often the
conversation-level status (found / missing / none) is right, and a row per family.

    .venv/bin/python bench/gateway_context.py [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import find_context  # noqa: E402

DATA = ROOT / "tests" / "data" / "gateway_context.jsonl"
_WORD = re.compile(r"\w+")


def tokens(passages) -> Counter:
    return Counter(w.lower() for p in passages for w in _WORD.findall(p))


def score(rows: list[dict]) -> dict:
    totals = defaultdict(lambda: Counter(hit=0, extracted=0, gold=0, cases=0, status_ok=0))
    for row in rows:
        found = find_context(row["messages"])
        got, gold = tokens(found.passages), tokens(row["gold"])
        for key in (row["family"], "ALL"):
            t = totals[key]
            t["hit"] += sum((got & gold).values())
            t["extracted"] += sum(got.values())
            t["gold"] += sum(gold.values())
            t["cases"] += 1
            t["status_ok"] += found.status == row["grounded"]
    out = {}
    for key, t in totals.items():
        out[key] = {
            "cases": t["cases"],
            "precision": t["hit"] / t["extracted"] if t["extracted"] else 1.0,
            "recall": t["hit"] / t["gold"] if t["gold"] else 1.0,
            "status_accuracy": t["status_ok"] / t["cases"],
        }
    return out


def detection(rows: list[dict]) -> dict:
    """Case level: does the finder say "found" exactly when there is gold context?"""
    tp = fp = fn = 0
    for row in rows:
        found = find_context(row["messages"]).found
        gold = bool(row["gold"])
        tp += found and gold
        fp += found and not gold
        fn += gold and not found
    return {
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "recall": tp / (tp + fn) if tp + fn else 1.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.data.read_text().splitlines() if line.strip()]
    table = score(rows)
    cases = detection(rows)
    print(f"{len(rows)} cases from {args.data}\n")
    print(f"{'family':28} {'cases':>5} {'precision':>9} {'recall':>7} {'status':>7}")
    for key in sorted(k for k in table if k != "ALL") + ["ALL"]:
        r = table[key]
        print(
            f"{key:28} {r['cases']:5d} {r['precision']:9.3f} {r['recall']:7.3f} "
            f"{r['status_accuracy']:7.3f}"
        )
    print(
        f"\ncontext found (case level): precision {cases['precision']:.3f}, "
        f"recall {cases['recall']:.3f}"
    )
    if args.json:
        args.json.write_text(json.dumps({"families": table, "cases": cases}, indent=2))


if __name__ == "__main__":
    main()
