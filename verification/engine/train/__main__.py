"""`python -m verification.engine.train`: train and ship the embedded detector.

    python -m verification.engine.train                       # full run -> models/default
    python -m verification.engine.train --limit 16 --epochs 1 --out /tmp/m   # smoke run

Writes `weights.safetensors` (fine-tuned top layers + head, float16),
`manifest.json` (what was trained on what, how, and how well on the
generated dev split) and `reference_predictions.json` (token probabilities
for fixed inputs, recomputed from the saved files so a fresh load can be
checked against them).
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

import torch
import transformers

from ..detectors import embedded
from ..detectors.minilm_model import build_model
from .datagen import TRAINING_FILES, file_sha256, generate
from .encode import encode_examples
from .loop import cache_bottom, train
from .reference import write_reference_predictions


def _parse(argv: list[str] | None) -> argparse.Namespace:
    repo_root = Path(__file__).resolve().parents[3]
    default_data = os.environ.get("TRUTHLENS_DATA_DIR", str(repo_root.parent / "shared" / "data"))
    p = argparse.ArgumentParser(prog="python -m verification.engine.train", description=__doc__)
    p.add_argument("--out", type=Path, default=embedded.DEFAULT_MODEL_DIR)
    p.add_argument("--data-dir", type=Path, default=Path(default_data))
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--limit", type=int, default=None, help="use at most N training examples")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:0 ...")
    p.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    p.add_argument("--max-length", type=int, default=384, help="training sequence length")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--lr", type=float, default=8e-5, help="learning rate of the top layers")
    p.add_argument("--head-lr", type=float, default=1e-3)
    p.add_argument("--frozen-layers", type=int, default=5)
    p.add_argument("--dev-percent", type=int, default=10)
    return p.parse_args(argv)


def _device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    started = time.time()
    transformers.logging.set_verbosity_error()  # the base wheel's unused pooler is expected
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    device = _device(args.device)

    train_ex, dev_ex = generate(args.data_dir, args.seed, args.dev_percent)
    if args.limit is not None:
        train_ex, dev_ex = train_ex[: args.limit], dev_ex[: max(8, args.limit // 4)]
    print(f"generated train={len(train_ex)} dev={len(dev_ex)} ({time.time() - started:.0f}s)")

    tokenizer = embedded.load_tokenizer()
    model = build_model(embedded.base_model_path(), tokenizer, args.frozen_layers).to(device)
    train_enc, dropped_train = encode_examples(train_ex, tokenizer, args.max_length)
    dev_enc, dropped_dev = encode_examples(dev_ex, tokenizer, args.max_length)
    print(
        f"encoded train={len(train_enc)} dev={len(dev_enc)} dropped={dropped_train + dropped_dev}"
    )

    train_cache = cache_bottom(model, train_enc, args.batch_size * 2, device)
    dev_cache = cache_bottom(model, dev_enc, args.batch_size * 2, device)
    print(f"cached frozen layers ({time.time() - started:.0f}s)")
    history = train(
        model,
        train_cache,
        dev_cache,
        epochs=args.epochs,
        batch_size=args.batch_size,
        lr=args.lr,
        head_lr=args.head_lr,
        seed=args.seed,
    )

    args.out.mkdir(parents=True, exist_ok=True)
    weights = embedded.save_weights(model, args.out / embedded.WEIGHTS_FILE)
    data_hashes = {name: file_sha256(args.data_dir / name) for name in TRAINING_FILES}
    manifest = {
        "format": 1,
        "name": embedded.NAME,
        "base": {
            "package": embedded.BASE_PACKAGE,
            "version": metadata.version(embedded.BASE_PACKAGE),
        },
        "architecture": "MiniLMTokenClassifier",
        "frozen_layers": args.frozen_layers,
        "weights": {
            "file": embedded.WEIGHTS_FILE,
            "dtype": "float16",
            "sha256": hashlib.sha256(weights.read_bytes()).hexdigest(),
            "tensors": sorted(embedded.load_state(weights)),
        },
        "inference_max_length": embedded.INFERENCE_MAX_LENGTH,
        "seed": args.seed,
        "training_data": data_hashes,
        "training_args": {
            k: (str(v) if isinstance(v, Path) else v)
            for k, v in vars(args).items()
            if k not in ("out", "data_dir")
        },
        "examples": {
            "train": len(train_enc),
            "dev": len(dev_enc),
            "dropped": dropped_train + dropped_dev,
            "train_hallucinated": sum(e.example_label for e in train_enc),
        },
        "dev_metrics": history,
        "environment": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": metadata.version("transformers"),
            "device": str(device),
        },
        "train_seconds": round(time.time() - started, 1),
    }
    (args.out / embedded.MANIFEST_FILE).write_text(json.dumps(manifest, indent=2) + "\n")
    write_reference_predictions(args.out)
    print(
        f"saved to {args.out} ({weights.stat().st_size / 1e6:.1f} MB, {time.time() - started:.0f}s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
