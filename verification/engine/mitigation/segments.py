"""Sentence-level claims with character offsets, and edits applied to them.

Premium mode and no-LLM repair edit answers one sentence at a time, so the
offsets must point into the original text exactly. Splitting is the engine's
own `sentences.split_sentences` (abbreviations, citation markers, CJK), so a
claim here is the same unit the detector's explanations use.
"""

from __future__ import annotations

from ..sentences import Sentence, split_sentences

Segment = Sentence

__all__ = ["Segment", "replace_segments", "segment_at", "split_sentences"]


def segment_at(segments: list[Segment], start: int, end: int) -> int | None:
    """Index of the segment overlapping [start, end) the most, or None."""
    best, best_overlap = None, 0
    for i, seg in enumerate(segments):
        overlap = min(end, seg.end) - max(start, seg.start)
        if overlap > best_overlap:
            best, best_overlap = i, overlap
    return best


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
