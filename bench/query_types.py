"""Query-type classifier accuracy on the held-out evaluation set, and its skip errors.

    python bench/query_types.py [--data tests/data/query_types.jsonl]

Prints accuracy, per-class precision/recall/F1 and the confusion matrix for
the shipped classifier (rules + MiniLM logistic regression), plus the accuracy
of each component alone so a regression can be traced to its source.

Then the skip table (`bench/data/skip_probes.jsonl`): factual prompts in seven
languages and with HTML/Markdown markup, which the default policy must
verify, and creative, code and opinion prompts, which it may skip. A false
skip lets an answer through unchecked; the table prints the false-skip rate
per group, and the skip rate of the prompts meant to be skipped (so "never
skip" cannot pass as a fix).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import QUERY_TYPES, QueryTypeClassifier, get_encoder, load_examples, rule_scores

DEFAULT_DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "query_types.jsonl"
SKIP_PROBES = Path(__file__).resolve().parent / "data" / "skip_probes.jsonl"
DEFAULT_SKIPPED = ("creative", "code", "opinion")  # the default policy's skip_query_types


def skip_table(clf: QueryTypeClassifier, path: Path = SKIP_PROBES) -> dict[str, dict]:
    """Per group: n, how many were skipped, and the rate that counts as an error."""
    import json

    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    labels = clf.classify_batch([r["text"] for r in rows])
    table: dict[str, dict] = {}
    for row, (label, _) in zip(rows, labels, strict=True):
        entry = table.setdefault(row["group"], {"expect": row["expect"], "n": 0, "skipped": 0})
        entry["n"] += 1
        entry["skipped"] += label in DEFAULT_SKIPPED
    return table


def print_skip_table(table: dict[str, dict]) -> None:
    print(f"\n{'group':<10}{'expect':>8}{'n':>5}{'skipped':>9}{'false-skip':>12}{'skip rate':>11}")
    for group, e in table.items():
        rate = e["skipped"] / e["n"]
        false_skip = f"{rate:.3f}" if e["expect"] == "verify" else ""
        skip_rate = f"{rate:.3f}" if e["expect"] == "skip" else ""
        print(
            f"{group:<10}{e['expect']:>8}{e['n']:>5}{e['skipped']:>9}{false_skip:>12}{skip_rate:>11}"
        )
    factual = [e for e in table.values() if e["expect"] == "verify"]
    wanted = [e for e in table.values() if e["expect"] == "skip"]
    print(
        f"false-skip rate, all factual prompts: {sum(e['skipped'] for e in factual)}"
        f"/{sum(e['n'] for e in factual)}; skip rate, prompts meant to be skipped: "
        f"{sum(e['skipped'] for e in wanted)}/{sum(e['n'] for e in wanted)}"
    )


def confusion(gold: list[str], pred: list[str]) -> np.ndarray:
    m = np.zeros((len(QUERY_TYPES), len(QUERY_TYPES)), dtype=int)
    for g, p in zip(gold, pred, strict=True):
        m[QUERY_TYPES.index(g), QUERY_TYPES.index(p)] += 1
    return m


def report(gold: list[str], pred: list[str]) -> None:
    m = confusion(gold, pred)
    acc = np.trace(m) / m.sum()
    print(f"accuracy: {acc:.3f} ({np.trace(m)}/{m.sum()})\n")
    print(f"{'type':<14}{'precision':>10}{'recall':>8}{'f1':>8}{'n':>6}")
    f1s = []
    for i, t in enumerate(QUERY_TYPES):
        tp = m[i, i]
        prec = tp / m[:, i].sum() if m[:, i].sum() else 0.0
        rec = tp / m[i, :].sum() if m[i, :].sum() else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        f1s.append(f1)
        print(f"{t:<14}{prec:>10.3f}{rec:>8.3f}{f1:>8.3f}{m[i, :].sum():>6}")
    print(f"{'macro-F1':<14}{'':>18}{np.mean(f1s):>8.3f}\n")
    short = [t[:6] for t in QUERY_TYPES]
    print("confusion (rows = gold, columns = predicted)")
    print(" " * 14 + "".join(f"{s:>8}" for s in short))
    for i, t in enumerate(QUERY_TYPES):
        print(f"{t:<14}" + "".join(f"{v:>8}" for v in m[i]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--errors", action="store_true", help="list misclassified prompts")
    args = parser.parse_args()
    rows = load_examples(args.data)
    texts, gold = [t for t, _ in rows], [label for _, label in rows]

    t0 = time.perf_counter()
    clf = QueryTypeClassifier(get_encoder())
    t1 = time.perf_counter()
    pred = [label for label, _ in clf.classify_batch(texts)]
    t2 = time.perf_counter()
    print(f"evaluation set: {args.data} ({len(rows)} prompts)")
    print(
        f"build {t1 - t0:.1f} s (model load + classifier setup), classify {1000 * (t2 - t1) / len(rows):.1f} ms/prompt\n"
    )
    report(gold, pred)

    model_only = [QUERY_TYPES[int(i)] for i in clf.model_probs(texts).argmax(axis=1)]
    rules = [rule_scores(t) for t in texts]
    rules_only = [QUERY_TYPES[int(r.argmax())] if r.max() > 0 else "other" for r in rules]
    for name, p in (("model only", model_only), ("rules only", rules_only)):
        acc = np.mean([a == b for a, b in zip(gold, p, strict=True)])
        print(f"\n{name}: accuracy {acc:.3f}")
    print_skip_table(skip_table(clf))
    if args.errors:
        print("\nerrors:")
        for t, g, p in zip(texts, gold, pred, strict=True):
            if g != p:
                print(f"  gold={g:<13} pred={p:<13} {t}")


if __name__ == "__main__":
    main()
