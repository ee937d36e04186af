"""Documents to passages: runs of whole sentences of about `TARGET_WORDS` words,
each with its offsets in the document's text (evidence points back into it)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine import split_sentences

TARGET_WORDS = 120
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
#: Letters of the scripts a passage should not mix: a sentence in another script starts a
#: new passage, so each passage of a mixed document gets its own language's stemming.
_SCRIPTS = {
    "latin": re.compile(r"[A-Za-z\u00c0-\u024f]"),
    "cjk": _CJK,
    "arabic": re.compile(r"[\u0600-\u06ff\u0750-\u077f]"),
    "hebrew": re.compile(r"[\u0590-\u05ff]"),
    "cyrillic": re.compile(r"[\u0400-\u04ff]"),
    "greek": re.compile(r"[\u0370-\u03ff]"),
    "devanagari": re.compile(r"[\u0900-\u097f]"),
}
MAX_CHARS = 2000
SWITCH_WORDS = 40  # words a passage holds before a sentence in another script may end it  # a "sentence" longer than this (a table, a list) is cut at whitespace


@dataclass(frozen=True)
class Chunk:
    start: int
    end: int
    text: str


def _pieces(text: str) -> list[tuple[int, int]]:
    """Sentences, with paragraphs as hard breaks and over-long ones cut."""
    out: list[tuple[int, int]] = []
    offset = 0
    for paragraph in text.split("\n\n"):
        for s in split_sentences(paragraph):
            start, end = offset + s.start, offset + s.end
            while end - start > MAX_CHARS:
                cut = text.rfind(" ", start, start + MAX_CHARS)
                cut = cut if cut > start else start + MAX_CHARS
                out.append((start, cut))
                start = cut + 1
            out.append((start, end))
        offset += len(paragraph) + 2
    return [(s, e) for s, e in out if text[s:e].strip()]


def _script(text: str, start: int, end: int) -> str | None:
    """The script most letters of `text[start:end]` are in (None: no letters we know)."""
    counts = {name: len(rx.findall(text, start, end)) for name, rx in _SCRIPTS.items()}
    best = max(counts, key=lambda name: counts[name])
    return best if counts[best] else None


def chunk(text: str, target_words: int = TARGET_WORDS) -> list[Chunk]:
    chunks: list[Chunk] = []
    start = end = None
    words = 0
    script = None
    for s, e in _pieces(text):
        # CJK has no spaces: two of its characters count as about one word
        n = len(text[s:e].split()) + len(_CJK.findall(text, s, e)) // 2
        here = _script(text, s, e)
        # a menu alternating "Egypt / مصر" stays one passage; a section in another script does not
        switched = here is not None and script not in (None, here) and words >= SWITCH_WORDS
        if start is not None and (words + n > target_words or switched):
            chunks.append(Chunk(start, end, text[start:end]))  # type: ignore[arg-type]
            start, words, script = None, 0, None
        if start is None:
            start = s
        script = script or here
        end, words = e, words + n
    if start is not None:
        chunks.append(Chunk(start, end, text[start:end]))  # type: ignore[arg-type]
    return chunks
