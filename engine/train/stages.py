"""The training stages of the embedded detector, and how a stage runs.

1. `entail`: entailment pairs (DocNLI's MNLI + FEVER). The whole encoder
   learns paraphrase against contradiction before it sees token labels.
2. `tokens`: token and span labels (perturbations generated from the
   dialogue training contexts, SummEdits one-edit diffs, WiCE human token
   labels, generated data-to-text and tool outputs), answer-labelled
   HaluEval pairs, and a replay slice of entailment pairs so stage 1 is
   not forgotten.

Each stage starts from the previous stage's final weights, checkpoints as
it goes (`loop.train`) and writes `<work>/<stage>/final.pt` with its dev
metrics when done. A finished stage is skipped on the next run, and an
unfinished one resumes from its checkpoint, so the command can simply be
run again after a stop.

The per-source example caps are what fits a CPU session (about 15 ex/s at
~70 tokens on 2 cores, 4-6 ex/s at 300); a GPU run raises them with
`--scale`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import torch

from ..detectors.minilm_model import MiniLMTokenClassifier
from . import packed, sources
from .datagen import Example
from .encode import Encoded, encode_examples
from .loop import LoopConfig, LoopState, train

DEV_CAP = 300  # dev examples per source: enough for AUROC to +-0.03, cheap to score


@dataclass(frozen=True)
class Stage:
    name: str
    #: source name -> most training examples taken from it (None: all)
    sources: dict[str, int | None]
    max_length: int
    loop: LoopConfig = field(default_factory=LoopConfig)


STAGES: tuple[Stage, ...] = (
    Stage("entail", {"docnli": 14000}, 192, LoopConfig(lr=5e-5, head_lr=5e-4)),
    Stage(
        "tokens",
        {
            "generated": 1500,
            "summedits": 1600,
            "wice": None,
            "structured": 1400,
            "halueval": 900,
            "docnli": 900,
        },
        384,
        LoopConfig(lr=3e-5, head_lr=3e-4, batch_size=16),
    ),
)


def stage_names() -> list[str]:
    return [s.name for s in STAGES]


def scaled(
    stage: Stage, scale: float, epochs: int | None, token_max_length: int | None = None
) -> Stage:
    caps = {k: (None if v is None else max(1, int(v * scale))) for k, v in stage.sources.items()}
    loop = replace(stage.loop, epochs=epochs) if epochs else stage.loop
    length = stage.max_length
    if token_max_length and stage.name != "entail":
        length = token_max_length
    return replace(stage, sources=caps, loop=loop, max_length=length)


def _sample(rows: list[Example], cap: int | None, seed: str) -> list[Example]:
    if cap is None or len(rows) <= cap:
        return rows
    return random.Random(seed).sample(rows, cap)


def stage_data(
    stage: Stage, data_dir: Path, seed: int, dev_percent: int
) -> tuple[list[Example], dict[str, list[Example]]]:
    """(training examples, dev examples per source) for `stage`."""
    train_rows: list[Example] = []
    dev: dict[str, list[Example]] = {}
    for name, cap in stage.sources.items():
        tr, dv = sources.load(name, data_dir, seed, dev_percent)
        train_rows += _sample(tr, cap, f"{seed}:{stage.name}:{name}")
        dev[name] = _sample(dv, DEV_CAP, f"{seed}:dev:{name}")
    random.Random(f"{seed}:{stage.name}").shuffle(train_rows)
    return train_rows, dev


@dataclass
class StageResult:
    name: str
    examples: dict[str, int]
    history: list[dict[str, float]]
    seconds: float


def prepare_stage(
    stage: Stage, tokenizer: object, data_dir: Path, seed: int, dev_percent: int
) -> tuple[list[Encoded], dict[str, list[Encoded]], int]:
    """(encoded training examples, encoded dev examples per source, dropped count)."""
    train_rows, dev_rows = stage_data(stage, data_dir, seed, dev_percent)
    train_enc, dropped = encode_examples(train_rows, tokenizer, stage.max_length)
    dev_enc: dict[str, list[Encoded]] = {
        k: encode_examples(v, tokenizer, stage.max_length)[0] for k, v in dev_rows.items()
    }
    return train_enc, dev_enc, dropped


def run_stage(
    stage: Stage,
    model: MiniLMTokenClassifier,
    tokenizer: object,
    data_dir: Path,
    work: Path,
    seed: int,
    dev_percent: int,
    log: Callable[[str], None] = print,
    prepared: Path | None = None,
) -> StageResult:
    """Train `model` through `stage` (or load its finished result) and return its record.

    With `prepared`, the encoded examples come from `prepared/<stage>.npz`
    (`packed.py`) instead of the raw data."""
    folder = work / stage.name
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / "final.pt"
    if final.is_file():
        saved = torch.load(final, map_location="cpu", weights_only=False)
        model.load_state_dict(saved["model"], strict=False)
        log(f"stage {stage.name}: already finished, loaded {final}")
        return StageResult(**saved["result"])
    import time

    started = time.time()
    if prepared is not None:
        train_enc, dev_enc, dropped = packed.load(prepared / f"{stage.name}.npz")
    else:
        train_enc, dev_enc, dropped = prepare_stage(stage, tokenizer, data_dir, seed, dev_percent)
    counts = {"train": len(train_enc), "dropped": dropped}
    counts |= {f"dev.{k}": len(v) for k, v in dev_enc.items()}
    log(f"stage {stage.name}: {json.dumps(counts)}")
    loop = replace(stage.loop, seed=seed)
    state: LoopState = train(model, train_enc, dev_enc, loop, folder / "checkpoint.pt", log)
    result = StageResult(stage.name, counts, state.history, round(time.time() - started, 1))
    torch.save({"model": model.trainable_state_dict(), "result": vars(result)}, final)
    (folder / "metrics.json").write_text(json.dumps(vars(result), indent=2) + "\n")
    return result
