"""Split an answer into sentence-level claims with character offsets.

Premium mode and no-LLM repair edit answers one sentence at a time, so the
offsets must point into the original text exactly; a regex splitter is
enough and keeps the engine free of NLP downloads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Words whose trailing period does not end a sentence.
_ABBREV = {
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "no",
    "fig", "inc", "ltd", "co", "corp", "approx", "u.s", "u.k", "jan", "feb", "mar", "apr",
    "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mt", "ca",
}  # fmt: skip
_BOUNDARY = re.compile(r"[.!?]+[\"')\]]*(?=\s)|\n+")


@dataclass(frozen=True)
class Segment:
    start: int
    end: int
    text: str


def _trimmed(text: str, start: int, end: int) -> Segment | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start >= end:
        return None
    return Segment(start, end, text[start:end])


def split_sentences(text: str) -> list[Segment]:
    """Sentences (and lines) of `text`, whitespace-trimmed, with offsets into `text`."""
    segments: list[Segment] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        if m.group().startswith((".",)) and "\n" not in m.group():
            word = re.search(r"([\w.]+)\.*$", text[start : m.start()])
            if word and word.group(1).lower().rstrip(".") in _ABBREV:
                continue
            # An initial ("J. Smith") is not a sentence end either.
            if word and len(word.group(1)) == 1 and word.group(1).isupper():
                continue
        seg = _trimmed(text, start, m.end())
        if seg is not None:
            segments.append(seg)
        start = m.end()
    tail = _trimmed(text, start, len(text))
    if tail is not None:
        segments.append(tail)
    return segments


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
