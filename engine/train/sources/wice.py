"""WiCE: Wikipedia claims with human labels of the tokens their cited page does not support.

Every row is a claim, its tokens, one boolean per token (not supported) and
the cited page as sentences with the ids of the supporting ones. Token
offsets are recovered by searching each token in the claim in order;
consecutive unsupported tokens become one span. The context is the
supporting sentences and their neighbours, in page order, capped at
`MAX_CONTEXT_CHARS`. The file's own train/dev split is kept.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..datagen import Example

FILES = ("wice_tokens/train.jsonl", "wice_tokens/dev.jsonl")
MAX_CONTEXT_CHARS = 1400


def token_spans(claim: str, tokens: list[str], flags: list[bool]) -> list[tuple[int, int]]:
    """Character spans of the flagged tokens, consecutive ones merged."""
    spans: list[tuple[int, int]] = []
    pos = 0
    prev_flagged = False
    for token, flagged in zip(tokens, flags, strict=False):
        start = claim.find(token, pos)
        if start < 0:  # a token the claim spells differently: keep going from here
            prev_flagged = False
            continue
        end = start + len(token)
        pos = end
        if flagged:
            if prev_flagged and spans:
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((start, end))
        prev_flagged = flagged
    return spans


def context(evidence: list[str], supporting: list[list[int]]) -> str:
    ids = sorted({i for group in supporting for i in group})
    wanted = sorted({j for i in ids for j in (i - 1, i, i + 1) if 0 <= j < len(evidence)})
    out: list[str] = []
    used = 0
    for j in sorted(wanted, key=lambda j: (j not in ids, j)):  # supporting ones first
        if used + len(evidence[j]) + 1 <= MAX_CONTEXT_CHARS:
            out.append(str(j))
            used += len(evidence[j]) + 1
    return " ".join(evidence[int(j)] for j in sorted(out, key=int))


def convert(row: dict[str, Any], n: int, split: str) -> Example | None:
    claim = row["claim"].strip()
    ctx = context(row["evidence"], row.get("supporting_sentences") or [])
    if not claim or not ctx:
        return None
    spans = token_spans(claim, row["claim_tokens"], row["non_supported_spans"])
    return Example(
        [ctx], None, claim, [(s, e, "wice") for s, e in spans], f"wice-{split}-{n}", "wice"
    )


def load(data_dir: Path, seed: int, dev_percent: int) -> tuple[list[Example], list[Example]]:
    out: dict[str, list[Example]] = {"train": [], "dev": []}
    for name in FILES:
        split = "dev" if name.endswith("dev.jsonl") else "train"
        with open(data_dir / name, encoding="utf-8") as fh:
            for n, line in enumerate(fh):
                ex = convert(json.loads(line), n, split)
                if ex is not None:
                    out[split].append(ex)
    return out["train"], out["dev"]
