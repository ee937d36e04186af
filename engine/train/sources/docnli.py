"""DocNLI's binary MNLI and FEVER pairs as answer-labelled examples.

Each line is `label<TAB>premise<TAB>hypothesis`; the premise becomes the
context, the hypothesis the answer, and `not_entailment` the hallucinated
label. There are no token labels: these pairs teach the encoder paraphrase
against contradiction (the pair head, and the token head through the
multiple-instance term of `loop.py`).
"""

from __future__ import annotations

from pathlib import Path

from ..datagen import Example, is_dev

FILES = tuple(f"docnli_pairs/{s}/{f}.txt" for s in ("mnli", "fever") for f in ("dev", "test"))
MAX_PREMISE_CHARS = 1500


def _cut(text: str) -> str:
    if len(text) <= MAX_PREMISE_CHARS:
        return text
    head = text[:MAX_PREMISE_CHARS]
    end = head.rfind(". ")
    return head[: end + 1] if end > MAX_PREMISE_CHARS // 2 else head


def load(data_dir: Path, seed: int, dev_percent: int) -> tuple[list[Example], list[Example]]:
    train: list[Example] = []
    dev: list[Example] = []
    for name in FILES:
        subset = name.split("/")[1]
        with open(data_dir / name, encoding="utf-8") as fh:
            for n, line in enumerate(fh):
                parts = line.rstrip("\n").split("\t")
                if len(parts) != 3 or parts[0] not in ("entailment", "not_entailment"):
                    continue
                label, premise, hypothesis = parts
                if not premise.strip() or not hypothesis.strip():
                    continue
                source_id = f"{name}:{n}"
                ex = Example(
                    [_cut(premise.strip())],
                    None,
                    hypothesis.strip(),
                    [],
                    source_id,
                    f"docnli-{subset}",
                    response_label=int(label == "not_entailment"),
                )
                (dev if is_dev(source_id, dev_percent) else train).append(ex)
    return train, dev
