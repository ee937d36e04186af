"""Training loop for the embedded detector: every encoder layer, resumable.

One loop serves every stage (`stages.py`). A batch mixes two kinds of
examples:

* token-labelled ones (generated perturbations, SummEdits diffs, WiCE):
  cross-entropy on each answer token;
* answer-labelled ones (entailment pairs, HaluEval): cross-entropy on the
  pair head, and a multiple-instance term that asks the highest token
  probability of a hallucinated answer to be high and of a faithful one
  to be low, so the token head learns from them too.

Every example also trains the pair head on its answer label.

The loop writes a checkpoint (trainable weights, optimiser, scheduler,
position in the epoch) every `checkpoint_every` steps and at the end of
each epoch, and `resume()` continues from the last one: a stopped run
loses at most `checkpoint_every` steps. Batch order is a pure function
of (seed, epoch), so a resumed run sees the same batches.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from ..detectors.minilm_model import MiniLMTokenClassifier
from .encode import IGNORE, Encoded

#: Weight of the multiple-instance term against the token and pair terms.
MIL_WEIGHT = 0.5


@dataclass
class LoopConfig:
    epochs: int = 1
    batch_size: int = 16
    lr: float = 5e-5
    head_lr: float = 5e-4
    seed: int = 13
    checkpoint_every: int = 100
    log_every: int = 25
    #: Token-count cap per batch: long examples go in smaller batches.
    max_batch_tokens: int = 4096


@dataclass
class LoopState:
    epoch: int = 0  # epochs finished
    step_in_epoch: int = 0  # batches finished in the current epoch
    global_step: int = 0
    history: list[dict[str, float]] = field(default_factory=list)


def _pad(rows: Sequence[list[int]], value: int) -> torch.Tensor:
    width = max(len(r) for r in rows)
    return torch.tensor([r + [value] * (width - len(r)) for r in rows], dtype=torch.long)


def batches(
    data: Sequence[Encoded], batch_size: int, max_tokens: int, rng: random.Random | None
) -> list[list[int]]:
    """Length-bucketed batches (sorted, chunked under a token cap), chunk order shuffled."""
    order = sorted(range(len(data)), key=lambda i: len(data[i].input_ids))
    out: list[list[int]] = []
    current: list[int] = []
    for i in order:
        width = len(data[i].input_ids)
        if current and (len(current) >= batch_size or width * (len(current) + 1) > max_tokens):
            out.append(current)
            current = []
        current.append(i)
    if current:
        out.append(current)
    if rng is not None:
        rng.shuffle(out)
    return out


def collate(rows: Sequence[Encoded], pad_id: int = 0) -> dict[str, torch.Tensor]:
    return {
        "input_ids": _pad([r.input_ids for r in rows], pad_id),
        "token_type_ids": _pad([r.token_type_ids for r in rows], 0),
        "attention_mask": _pad([[1] * len(r.input_ids) for r in rows], 0),
        "labels": _pad([r.labels for r in rows], IGNORE),
        "answer_mask": _pad([r.answer_mask or [0] * len(r.labels) for r in rows], 0),
        "example_labels": torch.tensor([r.example_label for r in rows], dtype=torch.long),
        "token_labelled": torch.tensor([r.token_labelled for r in rows], dtype=torch.bool),
    }


def _device(model: nn.Module) -> torch.device:
    return next(model.parameters()).device


def _to(batch: dict[str, torch.Tensor], device: torch.device) -> dict[str, torch.Tensor]:
    if device.type == "cpu":
        return batch
    return {k: v.to(device, non_blocking=True) for k, v in batch.items()}


def max_token_prob(token_probs: torch.Tensor, answer_mask: torch.Tensor) -> torch.Tensor:
    """[B] highest hallucination probability over each row's answer tokens."""
    masked = token_probs.masked_fill(answer_mask == 0, 0.0)
    return masked.max(dim=-1).values


class Losses:
    def __init__(self, pos_weight: float, device: torch.device | None = None) -> None:
        self.token = nn.CrossEntropyLoss(
            weight=torch.tensor([1.0, pos_weight], device=device), ignore_index=IGNORE
        )
        self.pair = nn.CrossEntropyLoss()

    def __call__(
        self, logits: torch.Tensor, batch: dict[str, torch.Tensor], pair_head: bool
    ) -> torch.Tensor:
        labels = batch["labels"].clone()
        labels[:, 0] = IGNORE  # position 0 is [CLS] (or the pair logits)
        loss = torch.zeros((), dtype=torch.float32, device=logits.device)
        if bool((labels != IGNORE).any()):
            loss = loss + self.token(logits.reshape(-1, 2).float(), labels.reshape(-1))
        y = batch["example_labels"]
        if pair_head:
            loss = loss + self.pair(logits[:, 0].float(), y)
        whole = ~batch["token_labelled"]
        if bool(whole.any()):
            probs = logits[whole].float().softmax(-1)[..., 1]
            top = max_token_prob(probs, batch["answer_mask"][whole]).clamp(1e-6, 1 - 1e-6)
            mil = nn.functional.binary_cross_entropy(top, y[whole].float())
            loss = loss + MIL_WEIGHT * mil
        return loss


def positive_weight(data: Sequence[Encoded]) -> float:
    """Class weight for hallucinated tokens: sqrt of the imbalance, capped (full inverse
    frequency over-flags; sqrt is the usual compromise)."""
    pos = sum(r.labels.count(1) for r in data)
    neg = sum(r.labels.count(0) for r in data)
    return min(5.0, math.sqrt(neg / pos)) if pos else 1.0


@torch.inference_mode()
def predict_rows(
    model: MiniLMTokenClassifier, data: Sequence[Encoded], batch_size: int = 32
) -> list[tuple[float, float, list[float]]]:
    """Per row: (pair probability, highest answer-token probability, labelled-token probs)."""
    model.eval()
    out: list[tuple[float, float, list[float]] | None] = [None] * len(data)
    device = _device(model)
    for idx in batches(data, batch_size, 8192, None):
        b = _to(collate([data[i] for i in idx]), device)
        logits = model(b["input_ids"], b["attention_mask"], b["token_type_ids"]).float()
        probs = logits.softmax(-1)[..., 1].cpu()
        top = max_token_prob(probs, b["answer_mask"].cpu())
        b["labels"] = b["labels"].cpu()
        for row, i in enumerate(idx):
            keep = b["labels"][row] != IGNORE
            keep[0] = False
            out[i] = (float(probs[row, 0]), float(top[row]), probs[row][keep].tolist())
    return [o for o in out if o is not None]


def evaluate(model: MiniLMTokenClassifier, data: Sequence[Encoded]) -> dict[str, float]:
    """Token P/R/F1 at 0.5, and example AUROC of the pair head and of the max token."""
    from sklearn.metrics import roc_auc_score

    rows = predict_rows(model, data)
    tp = fp = fn = 0
    for enc, (_, _, probs) in zip(data, rows, strict=True):
        gold = [lab for lab in enc.labels[1:] if lab != IGNORE]
        for p, y in zip(probs, gold, strict=True):
            tp += int(p > 0.5 and y == 1)
            fp += int(p > 0.5 and y == 0)
            fn += int(p <= 0.5 and y == 1)
    labels = [d.example_label for d in data]
    metrics: dict[str, float] = {"n": float(len(data))}
    if tp + fp + fn:
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        denom = precision + recall
        metrics |= {
            "token_precision": precision,
            "token_recall": recall,
            "token_f1": 2 * precision * recall / denom if denom else 0.0,
        }
    if len(set(labels)) == 2:
        metrics["auroc_max_token"] = float(roc_auc_score(labels, [r[1] for r in rows]))
        if model.has_pair_head:
            metrics["auroc_pair"] = float(roc_auc_score(labels, [r[0] for r in rows]))
    return metrics


def _atomic_save(obj: Any, path: Path) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def save_checkpoint(
    path: Path, model: MiniLMTokenClassifier, optim: Any, sched: Any, state: LoopState
) -> None:
    _atomic_save(
        {
            "model": model.trainable_state_dict(),
            "optim": optim.state_dict(),
            "sched": sched.state_dict(),
            "state": vars(state),
            # Dropout draws from torch's global generator: restoring it makes a
            # resumed run bit-identical to one that never stopped (on CPU).
            "torch_rng": torch.get_rng_state(),
        },
        path,
    )


def train(
    model: MiniLMTokenClassifier,
    train_data: Sequence[Encoded],
    dev_sets: Mapping[str, Sequence[Encoded]],
    config: LoopConfig,
    checkpoint: Path,
    log: Callable[[str], None] = print,
) -> LoopState:
    """Fine-tune `model` in place, resuming from `checkpoint` when it exists."""
    torch.manual_seed(config.seed)
    model.freeze_bottom()
    params = [p for p in model.parameters() if p.requires_grad]
    body = [p for n, p in model.named_parameters() if p.requires_grad and n.startswith("bert.")]
    heads = [
        p for n, p in model.named_parameters() if p.requires_grad and not n.startswith("bert.")
    ]
    optim = torch.optim.AdamW(
        [{"params": body, "lr": config.lr}, {"params": heads, "lr": config.head_lr}],
        weight_decay=0.01,
    )
    per_epoch = len(batches(train_data, config.batch_size, config.max_batch_tokens, None))
    steps = config.epochs * per_epoch
    warmup = max(1, steps // 20)
    sched = torch.optim.lr_scheduler.LambdaLR(
        optim, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup)))
    )
    state = LoopState()
    if checkpoint.is_file():
        saved = torch.load(checkpoint, map_location="cpu", weights_only=False)
        model.load_state_dict(saved["model"], strict=False)
        optim.load_state_dict(saved["optim"])
        sched.load_state_dict(saved["sched"])
        state = LoopState(**saved["state"])
        if "torch_rng" in saved:
            torch.set_rng_state(saved["torch_rng"])
        log(f"resumed from {checkpoint}: epoch {state.epoch}, step {state.step_in_epoch}")
    pos_weight = positive_weight(train_data)
    device = _device(model)
    losses = Losses(pos_weight, device)
    # On a GPU the forward runs in bfloat16 (the loss in float32); the CPU path is unchanged,
    # so a resumed CPU run stays bit-identical.
    autocast = torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.type == "cuda")
    log(f"train={len(train_data)} steps={steps} pos_weight={pos_weight:.2f}")
    while state.epoch < config.epochs:
        rng = random.Random(f"{config.seed}:{state.epoch}")
        order = batches(train_data, config.batch_size, config.max_batch_tokens, rng)
        model.train()
        start, total, count = time.time(), 0.0, 0
        seen = 0
        for step in range(state.step_in_epoch, len(order)):
            b = _to(collate([train_data[i] for i in order[step]]), device)
            with autocast:
                logits = model(b["input_ids"], b["attention_mask"], b["token_type_ids"])
            loss = losses(logits, b, model.has_pair_head)
            optim.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(params, 1.0)
            optim.step()
            sched.step()
            total, count, seen = total + loss.item(), count + 1, seen + len(order[step])
            state.step_in_epoch, state.global_step = step + 1, state.global_step + 1
            if state.step_in_epoch % config.checkpoint_every == 0:
                save_checkpoint(checkpoint, model, optim, sched, state)
            if state.step_in_epoch % config.log_every == 0:
                rate = seen / max(1e-6, time.time() - start)
                log(
                    f"epoch {state.epoch + 1} step {state.step_in_epoch}/{len(order)} "
                    f"loss {total / count:.4f} ({rate:.1f} ex/s)"
                )
        metrics: dict[str, float] = {"epoch": float(state.epoch + 1)}
        metrics["train_loss"] = total / max(1, count)
        for name, dev in dev_sets.items():
            if dev:
                metrics |= {f"{name}.{k}": v for k, v in evaluate(model, dev).items()}
        log(" ".join(f"{k}={v:.4f}" for k, v in metrics.items()))
        state.history.append(metrics)
        state.epoch, state.step_in_epoch = state.epoch + 1, 0
        save_checkpoint(checkpoint, model, optim, sched, state)
    return state
