"""Accuracy of a detector on the EVALUATION sets, next to a lexical-overlap baseline.

    python bench/accuracy.py                                   # embedded, all eval files
    python bench/accuracy.py --detector lexical --limit 200
    python bench/accuracy.py --detector /models/lettucedetect --file faithbench/test.jsonl

Prints, per file and per task: n, AUROC, balanced accuracy, P/R/F1 at the
threshold, confusion counts, character-level span P/R/F1 (files with span
labels), throughput and latency. `--limit N` takes N evenly spaced rows of
each file (say so when reporting figures).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))  # run as a script from anywhere

from bench.metrics import char_span_prf, example_metrics, reliability  # noqa: E402
from bench.overlap_baseline import score_overlap  # noqa: E402
from engine import (  # noqa: E402
    DetectionInput,
    merge_spans,
    response_score,
)

EVAL_FILES = (
    "lfqa_verification/test.jsonl",
    "faithbench/test.jsonl",
    "begin/test_wow_only.jsonl",
)

Scored = tuple[float, list[tuple[int, int]]]  # response score, predicted char spans
Scorer = Callable[[Sequence[DetectionInput]], list[Scored]]


@dataclass
class Row:
    item: DetectionInput
    label: int
    gold: list[tuple[int, int]]
    task: str


def load_rows(path: Path, limit: int | None) -> list[Row]:
    """All rows of `path`, or `limit` evenly spaced ones.

    Evenly spaced, not the first N: some files are sorted (LFQA by generation
    setting), so a prefix would be a biased sample.
    """
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            raw = json.loads(line)
            # Passages were joined with blank lines by the converter (data README).
            passages = [p for p in raw["context"].split("\n\n") if p.strip()]
            item = DetectionInput.build(passages, raw["answer"], raw.get("question") or None)
            gold = [(s["start"], s["end"]) for s in raw.get("spans", [])]
            rows.append(Row(item, int(raw["label"]), gold, raw.get("task", "other")))
    if limit is not None and limit < len(rows):
        rows = [rows[i * len(rows) // limit] for i in range(limit)]
    return rows


def selected(item: DetectionInput) -> DetectionInput:
    """The item with its context cut to the evidence selected for the answer, as the
    pipeline does under a policy with `evidence: "selected"` (`evidence_selection.py`)."""
    from dataclasses import replace

    from engine import select_evidence

    selection = select_evidence(item.context, item.response, item.query)
    if selection is None:
        return item
    return replace(item, context=tuple(p.text for p in selection.pieces), passage_ids=None)


def detector_scorer(
    detector,
    threshold: float,
    batch_size: int,
    aggregation: str = "calibrated",
    evidence: str = "all",
) -> Scorer:
    """Detector -> (score, spans) with the engine's aggregation (`spans.py`).

    Score = the policy aggregation: "calibrated" (the default) is the
    detector's response head where it has one, else span-max; span-max is
    taken with no token cut-off (the highest token probability), so AUROC
    sees a continuous score. Spans = tokens above `threshold`. Explanations
    and citation checks are left out: this measures the detector.
    """

    def score(items: Sequence[DetectionInput]) -> list[Scored]:
        out: list[Scored] = []
        for b in range(0, len(items), batch_size):
            chunk = items[b : b + batch_size]
            if evidence == "selected":
                chunk = [selected(item) for item in chunk]
            for item, pred in zip(chunk, detector.predict(chunk), strict=True):
                every = merge_spans(item.response, pred.tokens, 0.0, min_span_confidence=0.0)
                spans = merge_spans(
                    item.response, pred.tokens, threshold, min_span_confidence=threshold
                )
                value = response_score(
                    pred.tokens, every, aggregation, threshold, pred.response_prob
                )
                out.append((value, [(s.start, s.end) for s in spans]))
        return out

    return score


def evaluate(name: str, scorer: Scorer, rows: Sequence[Row], threshold: float) -> dict:
    start = time.perf_counter()
    scored = scorer([r.item for r in rows])
    elapsed = time.perf_counter() - start
    report: dict = {"system": name, "seconds": round(elapsed, 2)}
    report["examples_per_s"] = round(len(rows) / elapsed, 2) if elapsed else None
    report["ms_per_example"] = round(1000 * elapsed / max(1, len(rows)), 2)
    for task in ["all", *sorted({r.task for r in rows})]:
        idx = [i for i, r in enumerate(rows) if task == "all" or r.task == task]
        if task != "all" and len(idx) == len(rows):
            continue  # a single-task file: "all" already is that task
        labels = [rows[i].label for i in idx]
        scores = [scored[i][0] for i in idx]
        metrics = asdict(example_metrics(labels, scores, threshold))
        metrics["ece"], bins = reliability(labels, scores)
        if task == "all":
            report["reliability"] = bins
        if any(rows[i].gold for i in idx):
            prf = char_span_prf([scored[i][1] for i in idx], [rows[i].gold for i in idx])
            metrics |= {"span_p": prf.precision, "span_r": prf.recall, "span_f1": prf.f1}
        report[task] = metrics
    return report


def print_report(file: str, reports: Sequence[dict]) -> None:
    print(f"\n== {file}")
    for rep in reports:
        print(f"-- {rep['system']}: {rep['examples_per_s']} ex/s, {rep['ms_per_example']} ms/ex")
        for task, m in rep.items():
            if not isinstance(m, dict) or "n" not in m:
                continue
            line = (
                f"   [{task}] n={m['n']} pos={m['positives']} AUROC={m['auroc']:.4f} "
                f"BalAcc={m['balanced_accuracy']:.4f} P={m['precision']:.4f} R={m['recall']:.4f} "
                f"F1={m['f1']:.4f} TP={m['tp']} FP={m['fp']} TN={m['tn']} FN={m['fn']} "
                f"ECE={m['ece']:.4f}"
            )
            if "span_f1" in m:
                line += f" | span P={m['span_p']:.4f} R={m['span_r']:.4f} F1={m['span_f1']:.4f}"
            print(line)


def print_reliability(rep: dict) -> None:
    print(f"   reliability of {rep['system']} (bin: n, mean score, observed rate)")
    for b in rep["reliability"]:
        if b["n"]:
            print(f"     {b['bin']}: {b['n']:>5} {b['mean_score']:.3f} {b['rate']:.3f}")


def print_task_summary(results: dict, threshold: float) -> None:
    """Balanced accuracy at the threshold, per file and task (one calibrated threshold
    must serve every task)."""
    print(f"\n== balanced accuracy at the default threshold {threshold}, per task")
    for file, reports in results.items():
        for rep in reports:
            tasks = [k for k, v in rep.items() if isinstance(v, dict) and "n" in v]
            for task in [t for t in tasks if t != "all"] or ["all"]:
                m = rep[task]
                print(
                    f"   {file} [{task}] {rep['system']}: {m['balanced_accuracy']:.4f} "
                    f"(n={m['n']}, ECE {m['ece']:.4f})"
                )


def _parse(argv: list[str] | None) -> argparse.Namespace:
    default_data = os.environ.get("TRUTHLENS_DATA_DIR", str(REPO_ROOT.parent / "shared" / "data"))
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--detector",
        default="embedded",
        help="embedded (MiniLM+lexical, default) | minilm | lexical | <model folder>",
    )
    p.add_argument("--file", action="append", help="eval file, relative to --data-dir or absolute")
    p.add_argument("--data-dir", type=Path, default=Path(default_data))
    p.add_argument("--limit", type=int, default=None, help="N evenly spaced rows of each file")
    p.add_argument("--threshold", type=float, default=0.5)
    p.add_argument(
        "--baseline-threshold", type=float, default=0.1,
        help="unsupported-word fraction above which the overlap baseline flags (fixed a priori)",
    )  # fmt: skip
    p.add_argument(
        "--aggregation", default="calibrated", choices=("calibrated", "span_max", "noisy_or"),
        help="response score: the response head (falls back to span_max), span_max or noisy_or",
    )  # fmt: skip
    p.add_argument(
        "--evidence", default="all", choices=("selected", "all"),
        help="what the detector reads of a long context, as the policy's `evidence` "
        "(default: all of it, as the default policy)",
    )  # fmt: skip
    p.add_argument(
        "--dtype", default=None, choices=("float32", "bfloat16", "int8"),
        help="the embedded detector's arithmetic (TRUTHLENS_DETECTOR_DTYPE; default: auto): "
        "int8 quantizes its linear layers, bfloat16 runs its encoder layers in bf16",
    )  # fmt: skip
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--json", type=Path, default=None, help="also write all figures here")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    import torch

    torch.set_num_threads(args.threads)
    from engine import load_detector

    t0 = time.perf_counter()
    detector = load_detector(args.detector, dtype=args.dtype)
    print(f"detector {detector.name} loaded in {time.perf_counter() - t0:.1f}s")
    scorer = detector_scorer(
        detector, args.threshold, args.batch_size, args.aggregation, args.evidence
    )
    print(f"aggregation {args.aggregation}, threshold {args.threshold}, evidence {args.evidence}")
    results = {}
    for file in args.file or EVAL_FILES:
        path = Path(file) if Path(file).is_absolute() else args.data_dir / file
        rows = load_rows(path, args.limit)
        reports = [
            evaluate(detector.name, scorer, rows, args.threshold),
            evaluate("overlap-baseline", score_overlap, rows, args.baseline_threshold),
        ]
        print_report(f"{file} ({len(rows)} evenly spaced rows)" if args.limit else file, reports)
        print_reliability(reports[0])
        results[file] = reports
    print_task_summary(results, args.threshold)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
