"""Prompt format and context windowing for token-classification detectors.

Detectors in the LettuceDetect style read one sequence pair: a prompt that
holds the question and the context passages, then the answer. Only the
answer tokens are classified. A model has a fixed window (512 tokens for
BERT-sized encoders), so a long context is cut into several windows, each
holding whole passages where possible and the full answer.

Packing rules, in order of preference:

1. whole passages, in their original order, as many as fit in one window;
2. a passage too long for any window is split at sentence boundaries into
   chunks that overlap by one sentence, so a claim that straddles two
   chunks is still seen whole in one of them;
3. a single sentence too long for a window is split at token boundaries
   with a fixed token overlap.

This module knows nothing about models: it needs only a tokenizer that can
count tokens and report character offsets.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# LettuceDetect's prompts (lettucedetect/prompt_utils.py): the QA prompt when
# there is a question, the summary prompt otherwise. Checkpoints trained on
# RAGTruth with this format score best when they see it again at inference.
QA_PROMPT = (
    "\nBriefly answer the following question:\n{question}\n"
    "Bear in mind that your response should be strictly based on the following "
    "{num_passages} passages:\n{context}\n"
    "In case the passages do not contain the necessary information to answer the "
    'question, please reply with: "Unable to answer based on given passages."\n'
    "output:\n"
)
SUMMARY_PROMPT = "\nSummarize the following text:\n{text}\noutput:\n"

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")

#: Returns (start, end) character offsets of each token of a text, no special tokens.
OffsetFn = Callable[[str], list[tuple[int, int]]]


def format_context(pieces: Sequence[str]) -> str:
    return "\n".join(f"passage {i + 1}: {piece}" for i, piece in enumerate(pieces))


def format_prompt(pieces: Sequence[str], question: str | None) -> str:
    """The first sequence of the pair: question (if any) and numbered passages."""
    context = format_context(pieces)
    if question:
        return QA_PROMPT.format(question=question, num_passages=len(pieces), context=context)
    return SUMMARY_PROMPT.format(text=context)


@dataclass(frozen=True)
class Piece:
    """A slice `[start, end)` of passage `passage`, with its token count."""

    passage: int
    start: int
    end: int
    tokens: int


@dataclass
class Window:
    """Pieces that go together into one prompt."""

    pieces: list[Piece]

    def texts(self, passages: Sequence[str]) -> list[str]:
        return [passages[p.passage][p.start : p.end] for p in self.pieces]


def sentence_bounds(text: str) -> list[tuple[int, int]]:
    """Character ranges of the sentences of `text` (whitespace between them excluded)."""
    bounds: list[tuple[int, int]] = []
    pos = 0
    for match in _SENTENCE_END.finditer(text):
        if match.start() > pos:
            bounds.append((pos, match.start()))
        pos = match.end()
    if pos < len(text):
        bounds.append((pos, len(text)))
    return bounds


def _token_chunks(
    offsets: list[tuple[int, int]], start: int, end: int, budget: int, overlap: int
) -> list[tuple[int, int, int]]:
    """Split chars `[start, end)` into chunks of at most `budget` tokens.

    Returns (char_start, char_end, tokens). Consecutive chunks share
    `overlap` tokens so a fact cut at a boundary appears whole in one chunk.
    """
    toks = [(s, e) for s, e in offsets if s >= start and e <= end and e > s]
    if not toks:
        return [(start, end, 0)]
    step = max(1, budget - overlap)
    chunks = []
    for i in range(0, len(toks), step):
        part = toks[i : i + budget]
        chunks.append((part[0][0], part[-1][1], len(part)))
        if i + budget >= len(toks):
            break
    return chunks


def split_passage(
    passage_index: int,
    text: str,
    offsets: list[tuple[int, int]],
    budget: int,
    token_overlap: int = 32,
) -> list[Piece]:
    """Cut one passage into pieces of at most `budget` tokens (see module docstring)."""
    if len(offsets) <= budget:
        return [Piece(passage_index, 0, len(text), len(offsets))]

    # Non-empty tokens sorted by start, so counting a sentence's tokens reads only
    # that sentence (a scan of the whole passage per sentence is quadratic).
    toks = sorted((s, e) for s, e in offsets if e > s)
    starts = [s for s, _ in toks]

    def count(start: int, end: int) -> int:
        n, i = 0, bisect_left(starts, start)
        while i < len(toks) and toks[i][0] < end:
            n += toks[i][1] <= end
            i += 1
        return n

    units: list[tuple[int, int, int]] = []
    for s, e in sentence_bounds(text):
        n = count(s, e)
        if n > budget:
            units.extend(_token_chunks(offsets, s, e, budget, min(token_overlap, budget // 4)))
        else:
            units.append((s, e, n))

    pieces: list[Piece] = []
    i = 0
    while i < len(units):
        start, end, total = units[i]
        j = i + 1
        while j < len(units) and total + units[j][2] <= budget:
            end, total = units[j][1], total + units[j][2]
            j += 1
        pieces.append(Piece(passage_index, start, end, total))
        if j >= len(units):
            break
        # Overlap by one sentence unless that would not make progress.
        i = j - 1 if j - 1 > i else j
    return pieces


def pack_windows(pieces: Sequence[Piece], budget: int, piece_overhead: int) -> list[Window]:
    """Greedily pack pieces, in order, into windows of at most `budget` tokens.

    `piece_overhead` is the cost of the "passage i: " prefix each piece
    carries. A window always holds at least one piece.
    """
    windows: list[Window] = []
    current: list[Piece] = []
    used = 0
    for piece in pieces:
        cost = piece.tokens + piece_overhead
        if current and used + cost > budget:
            windows.append(Window(current))
            current, used = [], 0
        current.append(piece)
        used += cost
    if current or not windows:
        windows.append(Window(current))
    return windows


def plan_windows(
    passages: Sequence[str],
    passage_offsets: Sequence[list[tuple[int, int]]],
    budget: int,
    piece_overhead: int,
    token_overlap: int = 32,
) -> list[Window]:
    """Windows covering every passage, each within `budget` context tokens."""
    piece_budget = max(1, budget - piece_overhead)
    pieces: list[Piece] = []
    for i, (text, offsets) in enumerate(zip(passages, passage_offsets, strict=True)):
        if text.strip():
            pieces.extend(split_passage(i, text, offsets, piece_budget, token_overlap))
    return pack_windows(pieces, budget, piece_overhead)


def covered_tokens(
    windows: Sequence[Window], passage_offsets: Sequence[list[tuple[int, int]]]
) -> tuple[int, int]:
    """(context tokens, context chars) that lie inside at least one window's pieces."""
    ranges: dict[int, list[tuple[int, int]]] = {}
    for window in windows:
        for p in window.pieces:
            ranges.setdefault(p.passage, []).append((p.start, p.end))
    tokens = chars = 0
    for passage, spans in ranges.items():
        merged: list[list[int]] = []
        for s, e in sorted(spans):
            if merged and s <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        chars += sum(e - s for s, e in merged)
        tokens += sum(
            1
            for s, e in passage_offsets[passage]
            if e > s and any(ms <= s and e <= me for ms, me in merged)
        )
    return tokens, chars
