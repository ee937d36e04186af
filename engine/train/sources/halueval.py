"""HaluEval QA and dialogue pairs: a right and a hallucinated answer on the same knowledge.

Only answer-level labels exist, so these train the pair head (and the token
head through the multiple-instance loss). The hallucinated side was written
by ChatGPT and differs in length and style from the right side: right QA
answers are often a bare entity, wrong ones a sentence. Both sides of a
pair are always emitted together, and only pairs whose two answers are of
comparable length (word ratio at most `MAX_LENGTH_RATIO`) are used, so that
length and style cannot tell the classes apart; the summarization file is
not used (47 MB of news, which SummEdits already covers with exact edits).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from ..datagen import Example, is_dev

FILES = ("halueval/qa.jsonl", "halueval/dialogue.jsonl")
MAX_LENGTH_RATIO = 2.0
PAIRS_PER_FILE = 3000


def comparable(a: str, b: str) -> bool:
    la, lb = len(a.split()), len(b.split())
    return min(la, lb) > 0 and max(la, lb) / min(la, lb) <= MAX_LENGTH_RATIO


def _pair(raw: dict[str, Any], kind: str) -> tuple[str, str | None, str, str]:
    if kind == "qa":
        return raw["knowledge"], raw["question"], raw["right_answer"], raw["hallucinated_answer"]
    history = raw["dialogue_history"].strip().splitlines()
    question = history[-1] if history else None
    return raw["knowledge"], question, raw["right_response"], raw["hallucinated_response"]


def load(data_dir: Path, seed: int, dev_percent: int) -> tuple[list[Example], list[Example]]:
    train: list[Example] = []
    dev: list[Example] = []
    for name in FILES:
        kind = "qa" if name.endswith("qa.jsonl") else "dialogue"
        with open(data_dir / name, encoding="utf-8") as fh:
            rows = [json.loads(line) for line in fh]
        order = list(range(len(rows)))
        random.Random(f"{seed}:{name}").shuffle(order)
        taken = 0
        for n in order:
            if taken >= PAIRS_PER_FILE:
                break
            knowledge, question, right, wrong = _pair(rows[n], kind)
            right, wrong = right.strip(), wrong.strip()
            if not knowledge.strip() or not comparable(right, wrong) or right == wrong:
                continue
            taken += 1
            source_id = f"{name}:{n}"
            target = dev if is_dev(source_id, dev_percent) else train
            for answer, label in ((right, 0), (wrong, 1)):
                target.append(
                    Example(
                        [knowledge.strip()],
                        question,
                        answer,
                        [],
                        source_id,
                        f"halueval-{kind}",
                        response_label=label,
                    )  # fmt: skip
                )
    return train, dev
