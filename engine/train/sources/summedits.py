"""SummEdits: summaries with one small edit, consistent or not, over long documents.

A row's `label` is 1 when the edited summary is still CONSISTENT (the
opposite of our convention). For an inconsistent row the hallucinated span
is what the edit changed: a word-level diff of `summary` against
`original_summary` marks the inserted or replaced words, or, for a pure
deletion (a dropped "not"), the words on both sides of the cut. Consistent
edits are kept as faithful answers: they are paraphrases, exactly the
negatives that word overlap gets wrong.

Documents run to several thousand characters, so the context keeps the
document sentences that share the most words with the ORIGINAL summary
(never the edited one, which would leak the edit), in document order, up
to `MAX_CONTEXT_CHARS`.
"""

from __future__ import annotations

import json
import re
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from ...detectors.windows import sentence_bounds
from ..datagen import Example, is_dev

DOMAINS = ("news", "podcast", "qmsumm", "sales_call", "ectsum")
FILES = tuple(f"summedits/summedits_{d}.json" for d in DOMAINS)
MAX_CONTEXT_CHARS = 1400
MAX_EDIT_SPANS = 2
_WORD = re.compile(r"\w+(?:[.,'’-]\w+)*|[^\w\s]")


def words(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _WORD.finditer(text)]


def edit_spans(summary: str, original: str) -> list[tuple[int, int]]:
    """Character spans of `summary` that differ from `original` (word-level diff)."""
    new, old = words(summary), words(original)
    a = [original[s:e].lower() for s, e in old]
    b = [summary[s:e].lower() for s, e in new]
    spans: list[tuple[int, int]] = []
    for tag, _i1, _i2, j1, j2 in SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag in ("replace", "insert") and j2 > j1:
            spans.append((new[j1][0], new[j2 - 1][1]))
        elif tag == "delete" and new:
            # Nothing of the new text is new: mark the words around the cut.
            lo, hi = max(0, j1 - 1), min(len(new) - 1, j1)
            spans.append((new[lo][0], new[hi][1]))
    return spans


def select_context(doc: str, anchor: str, limit: int = MAX_CONTEXT_CHARS) -> str:
    """Document sentences sharing the most words with `anchor`, in order, under `limit`."""
    bounds = sentence_bounds(doc)
    target = {w.lower() for w in re.findall(r"\w+", anchor) if len(w) > 2}
    scored = []
    for idx, (s, e) in enumerate(bounds):
        sent = set(w.lower() for w in re.findall(r"\w+", doc[s:e]))
        scored.append((-len(sent & target), idx))
    chosen: list[int] = []
    used = 0
    for _, idx in sorted(scored):
        s, e = bounds[idx]
        if used + (e - s) + 1 > limit:
            continue
        chosen.append(idx)
        used += e - s + 1
    return " ".join(doc[bounds[i][0] : bounds[i][1]].strip() for i in sorted(chosen))


def convert(row: dict[str, Any]) -> Example | None:
    summary, original = row["summary"].strip(), row["original_summary"].strip()
    if not summary or not row["doc"].strip():
        return None
    consistent = str(row["label"]) == "1"
    context = select_context(row["doc"], original)
    edits = str(row.get("edit_types", "[]")).strip("[]").replace("'", "").replace('"', "")
    kind = edits.split(",")[0].strip() or "edit"
    if consistent:
        return Example([context], None, summary, [], row["id"], "summedits-consistent")
    spans = edit_spans(summary, original)
    if not spans or len(spans) > MAX_EDIT_SPANS:
        # Several edits mix consistent rewordings with the inconsistent one, and the
        # row does not say which is which: only the answer as a whole is labelled.
        return Example([context], None, summary, [], row["id"], kind, response_label=1)
    return Example([context], None, summary, [(s, e, kind) for s, e in spans], row["id"], kind)


def load(data_dir: Path, seed: int, dev_percent: int) -> tuple[list[Example], list[Example]]:
    train: list[Example] = []
    dev: list[Example] = []
    seen: set[str] = set()
    for name in FILES:
        for row in json.loads((data_dir / name).read_text(encoding="utf-8")):
            if row["id"] in seen:
                continue
            seen.add(row["id"])
            ex = convert(row)
            if ex is not None:
                # Split by document, so no document is both trained on and held out.
                doc_id = row["id"].split("_")[0]
                (dev if is_dev(doc_id, dev_percent) else train).append(ex)
    return train, dev
