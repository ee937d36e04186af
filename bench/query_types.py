"""Query-type classifier accuracy on the held-out evaluation set.

    python bench/query_types.py [--data tests/data/query_types.jsonl]

Prints accuracy, per-class precision/recall/F1 and the confusion matrix for
the shipped classifier (rules + MiniLM logistic regression), plus the accuracy
of each component alone so a regression can be traced to its source.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verification.engine.embeddings import get_encoder  # noqa: E402
from verification.engine.query_types import (  # noqa: E402
    QueryTypeClassifier,
    load_examples,
    rule_scores,
)
from verification.engine.types import QUERY_TYPES  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "query_types.jsonl"


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
    if args.errors:
        print("\nerrors:")
        for t, g, p in zip(texts, gold, pred, strict=True):
            if g != p:
                print(f"  gold={g:<13} pred={p:<13} {t}")


if __name__ == "__main__":
    main()
