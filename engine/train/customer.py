"""Fine-tune a detector folder on customer-style development cases.

    python -m engine.train.customer --from engine/weights/default \\
        --sets c,g,h,k,m,n,p,q,r,s,t,u,v,w,x --out bench/models/embedded_v3 [--epochs 3]

The customer-style sets (`bench/cases/customer_style*.jsonl`, written for this project by
helpers who saw no code) are the closest thing to what customers send: faithful answers
that paraphrase and work out values, next to answers with one wrong value, name, date,
negation or added clause, each marked as an exact character span. This continues
training the folder's trainable layers on their token labels (a faithful answer is all
zeros), starting from its weights, and writes a folder the registry loads like any other
(`TRUTHLENS_DETECTOR=<folder>`), with the source folder's response head and a manifest
that records which sets it saw. Never pass a set kept for measuring (see
`bench/customer_cases.py`): `HELD_OUT` lists them and is refused.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import transformers

from ..detectors import embedded
from .datagen import Example
from .encode import encode_examples
from .loop import LoopConfig, train
from .reference import write_reference_predictions

CASES_DIR = Path(__file__).resolve().parents[2] / "bench" / "cases"
#: Sets written blind and kept for the next measurement: never trained on.
HELD_OUT = frozenset({"zm", "zn"})


def case_file(name: str, cases_dir: Path | None = None) -> Path:
    return (cases_dir or CASES_DIR) / (
        "customer_style.jsonl" if name == "c" else f"customer_style_{name}.jsonl"
    )


def _shown(path: Path) -> str:
    """`path` relative to the repository when it lies inside it (manifests travel)."""
    try:
        return str(path.resolve().relative_to(CASES_DIR.parents[1]))
    except ValueError:
        return str(path)


def load_examples(names: list[str], cases_dir: Path | None = None) -> list[Example]:
    """Every case of the named sets as a token-labelled `Example`."""
    if refused := sorted(set(names) & HELD_OUT):
        raise ValueError(f"sets {refused} are held out for measurement, not training")
    out = []
    for name in names:
        for line in case_file(name, cases_dir).read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            case = json.loads(line)
            spans = [(s["start"], s["end"], s.get("type", "unsupported")) for s in case["spans"]]
            out.append(
                Example(
                    passages=list(case["context"]),
                    question=case.get("query"),
                    answer=case["response"],
                    spans=spans,
                    source_id=f"customer_style_{name}:{case['id']}",
                    kind=case.get("kind", "faithful"),
                )
            )
    return out


def fine_tune(
    source: Path,
    out: Path,
    names: list[str],
    epochs: int = 3,
    lr: float = 3e-5,
    seed: int = 13,
    max_length: int = embedded.INFERENCE_MAX_LENGTH,
    log: Callable[..., None] = print,
) -> dict[str, Any]:
    """Train `source`'s weights on the named sets and write the result to `out`."""
    started = time.time()
    torch.manual_seed(seed)
    random.seed(seed)
    tokenizer = embedded.load_tokenizer()
    model, manifest = embedded.load_model(source, tokenizer)
    rows = load_examples(names)
    random.Random(seed).shuffle(rows)
    encoded, dropped = encode_examples(rows, tokenizer, max_length)
    log(f"{len(encoded)} examples from sets {names}, {dropped} dropped (context too long)")
    if not encoded:
        raise ValueError(f"no case of sets {names} fits {max_length} tokens")
    work = out.with_name(out.name + ".work")
    work.mkdir(parents=True, exist_ok=True)
    loop = LoopConfig(epochs=epochs, lr=lr, head_lr=lr * 10, batch_size=8, seed=seed)
    state = train(model.train(), encoded, {}, loop, work / "checkpoint.pt", log)
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(source, out)
    weights = embedded.save_weights(model.cpu().eval(), out / embedded.WEIGHTS_FILE)
    manifest["weights"]["sha256"] = hashlib.sha256(weights.read_bytes()).hexdigest()
    manifest["fine_tuned"] = {
        "from": _shown(source),
        "customer_sets": names,
        "examples": len(encoded),
        "dropped": dropped,
        "epochs": epochs,
        "lr": lr,
        "seed": seed,
        "history": state.history,
        "seconds": round(time.time() - started, 1),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
    }
    (out / embedded.MANIFEST_FILE).write_text(json.dumps(manifest, indent=2) + "\n")
    write_reference_predictions(out)
    shutil.rmtree(work, ignore_errors=True)
    log(f"saved to {out} in {time.time() - started:.0f}s")
    return manifest


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m engine.train.customer")
    p.add_argument("--from", dest="source", type=Path, default=embedded.DEFAULT_MODEL_DIR)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--sets", required=True, help="comma-separated set letters (c = the first)")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--lr", type=float, default=3e-5)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    transformers.logging.set_verbosity_error()
    torch.set_num_threads(args.threads)
    fine_tune(args.source, args.out, args.sets.split(","), args.epochs, args.lr, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
