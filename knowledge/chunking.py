"""Documents to passages: runs of whole sentences of about `TARGET_WORDS` words,
each with its offsets in the document's text (evidence points back into it)."""

from __future__ import annotations

from dataclasses import dataclass

from verification.engine.text.sentences import split_sentences

TARGET_WORDS = 120
MAX_CHARS = 2000  # a "sentence" longer than this (a table, a list) is cut at whitespace


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


def chunk(text: str, target_words: int = TARGET_WORDS) -> list[Chunk]:
    chunks: list[Chunk] = []
    start = end = None
    words = 0
    for s, e in _pieces(text):
        n = len(text[s:e].split())
        if start is not None and words + n > target_words:
            chunks.append(Chunk(start, end, text[start:end]))  # type: ignore[arg-type]
            start, words = None, 0
        if start is None:
            start = s
        end, words = e, words + n
    if start is not None:
        chunks.append(Chunk(start, end, text[start:end]))  # type: ignore[arg-type]
    return chunks
