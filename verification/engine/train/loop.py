"""Training loop for the embedded detector, built for a small CPU budget.

The bottom of the encoder is frozen, so its activations are computed once
(`cache_bottom`) and every epoch only runs the trainable top layers. That
turns an epoch from a full forward+backward of 6 layers into one of 2,
and makes a ~30 minute CPU run possible.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from ..detectors.minilm_model import MiniLMTokenClassifier
from .encode import IGNORE, Encoded


@dataclass
class Cached:
    hidden: torch.Tensor  # [L, H] output of the frozen layers
    feats: torch.Tensor  # [L, N_LEXICAL]
    labels: torch.Tensor  # [L]
    example_label: int


def _pad(rows: Sequence[torch.Tensor], value: float = 0.0) -> torch.Tensor:
    return nn.utils.rnn.pad_sequence(list(rows), batch_first=True, padding_value=value)


def _batches(lengths: Sequence[int], batch_size: int, rng: random.Random | None) -> list[list[int]]:
    """Length-bucketed batches: sort by length, chunk, shuffle the chunk order."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    chunks = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
    if rng is not None:
        rng.shuffle(chunks)
    return chunks


@torch.inference_mode()
def cache_bottom(
    model: MiniLMTokenClassifier, data: Sequence[Encoded], batch_size: int, device: torch.device
) -> list[Cached]:
    model.eval()
    out: list[Cached | None] = [None] * len(data)
    for idx in _batches([len(d.input_ids) for d in data], batch_size, None):
        ids = _pad([torch.tensor(data[i].input_ids) for i in idx]).to(device)
        types = _pad([torch.tensor(data[i].token_type_ids) for i in idx]).to(device)
        mask = _pad([torch.ones(len(data[i].input_ids), dtype=torch.long) for i in idx]).to(device)
        feats = model.lexical_features(ids, mask, types)
        hidden = model.bottom(ids, mask, types)
        for row, i in enumerate(idx):
            n = len(data[i].input_ids)
            out[i] = Cached(
                hidden[row, :n].clone(),
                feats[row, :n].clone(),
                torch.tensor(data[i].labels),
                data[i].example_label,
            )
    return [c for c in out if c is not None]


def _collate(rows: Sequence[Cached]) -> tuple[torch.Tensor, ...]:
    hidden = _pad([r.hidden for r in rows])
    feats = _pad([r.feats for r in rows])
    labels = _pad([r.labels for r in rows], IGNORE).long()
    mask = _pad([torch.ones(len(r.labels), dtype=torch.long) for r in rows])
    return hidden, feats, labels, mask


@torch.inference_mode()
def evaluate(
    model: MiniLMTokenClassifier, data: Sequence[Cached], batch_size: int
) -> dict[str, float]:
    """Token P/R/F1 at 0.5 and example AUROC (score = max answer-token probability)."""
    from sklearn.metrics import roc_auc_score

    model.eval()
    tp = fp = fn = 0
    scores: list[float] = []
    labels: list[int] = []
    for idx in _batches([len(d.labels) for d in data], batch_size, None):
        hidden, feats, tok_labels, mask = _collate([data[i] for i in idx])
        probs = model.top(hidden, mask, feats).softmax(-1)[..., 1]
        for row, i in enumerate(idx):
            keep = tok_labels[row] != IGNORE
            p, y = probs[row][keep], tok_labels[row][keep]
            pred = p > 0.5
            tp += int((pred & (y == 1)).sum())
            fp += int((pred & (y == 0)).sum())
            fn += int((~pred & (y == 1)).sum())
            scores.append(float(p.max()) if len(p) else 0.0)
            labels.append(data[i].example_label)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    auroc = roc_auc_score(labels, scores) if len(set(labels)) == 2 else float("nan")
    return {"token_precision": precision, "token_recall": recall, "token_f1": f1, "auroc": auroc}


def positive_weight(data: Sequence[Cached]) -> float:
    """Class weight for hallucinated tokens: sqrt of the imbalance, capped (full inverse
    frequency over-flags; sqrt is the usual compromise)."""
    pos = sum(int((d.labels == 1).sum()) for d in data)
    neg = sum(int((d.labels == 0).sum()) for d in data)
    return min(5.0, math.sqrt(neg / pos)) if pos else 1.0


def train(
    model: MiniLMTokenClassifier,
    train_data: Sequence[Cached],
    dev_data: Sequence[Cached],
    *,
    epochs: int,
    batch_size: int,
    lr: float,
    head_lr: float,
    seed: int,
    log=print,
) -> list[dict[str, float]]:
    """Fine-tune the top of `model` in place; returns dev metrics per epoch."""
    torch.manual_seed(seed)
    rng = random.Random(seed)
    model.freeze_bottom()
    top_params = [
        p for n, p in model.named_parameters() if p.requires_grad and n.startswith("bert.")
    ]
    head_params = [
        p for n, p in model.named_parameters() if p.requires_grad and not n.startswith("bert.")
    ]
    optim = torch.optim.AdamW(
        [{"params": top_params, "lr": lr}, {"params": head_params, "lr": head_lr}],
        weight_decay=0.01,
    )
    steps = epochs * math.ceil(len(train_data) / batch_size)
    warmup = max(1, steps // 16)
    sched = torch.optim.lr_scheduler.LambdaLR(
        optim, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup)))
    )
    weight = torch.tensor([1.0, positive_weight(train_data)])
    loss_fn = nn.CrossEntropyLoss(weight=weight, ignore_index=IGNORE)
    log(f"train={len(train_data)} dev={len(dev_data)} steps={steps} pos_weight={weight[1]:.2f}")
    history = []
    for epoch in range(1, epochs + 1):
        model.train()
        start, total, count = time.time(), 0.0, 0
        for step, idx in enumerate(_batches([len(d.labels) for d in train_data], batch_size, rng)):
            hidden, feats, labels, mask = _collate([train_data[i] for i in idx])
            logits = model.top(hidden, mask, feats)
            loss = loss_fn(logits.reshape(-1, 2), labels.reshape(-1))
            optim.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(top_params + head_params, 1.0)
            optim.step()
            sched.step()
            total, count = total + loss.item(), count + 1
            if step % 50 == 0:
                log(
                    f"epoch {epoch} step {step} loss {total / count:.4f} ({time.time() - start:.0f}s)"
                )
        metrics = {"epoch": float(epoch), "train_loss": total / max(1, count)}
        metrics |= evaluate(model, dev_data, batch_size) if dev_data else {}
        log(" ".join(f"{k}={v:.4f}" for k, v in metrics.items()) + f" ({time.time() - start:.0f}s)")
        history.append(metrics)
    return history
