"""Sentence-level claims with character offsets, and edits applied to them.

Premium mode and no-LLM repair edit answers one sentence at a time, so the
offsets must point into the original text exactly. Splitting is the engine's
own `sentences.split_sentences` (abbreviations, citation markers, CJK), so a
claim here is the same unit the detector's explanations use.
"""

from __future__ import annotations

from ..text.sentences import Sentence, split_sentences

Segment = Sentence

__all__ = ["Segment", "replace_segments", "split_sentences"]


def replace_segments(text: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply non-overlapping (start, end, new_text) edits; removals also drop a following space."""
    out = text
    for start, end, new in sorted(edits, key=lambda e: e[0], reverse=True):
        if new == "":
            # Swallow the whitespace after a removed sentence so no double spaces remain.
            while end < len(out) and out[end] in " \t":
                end += 1
        out = out[:start] + new + out[end:]
    return out.strip()
