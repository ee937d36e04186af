"""Sentence splitting with character offsets (answers and context passages)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .memo import memoise_text

# A sentence ends at . ! ? (plus closing quotes/brackets/citation markers)
# followed by whitespace, at a CJK full stop, or at a line break.
_BOUNDARY_RE = re.compile(
    r"(?<=[.!?])(?:[\"'”’)\]]*(?:\s*\[[^\[\]\n]{1,40}\])*)\s+"
    r"|(?<=[。！？])"
    r"|\n+"
)
_ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "sr",
        "jr",
        "st",
        "vs",
        "etc",
        "e.g",
        "i.e",
        "fig",
        "no",
        "vol",
        "approx",
        "inc",
        "ltd",
        "co",
        "corp",
        "dept",
        "est",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "u.s",
        "u.k",
    ]
)


@dataclass(frozen=True)
class Sentence:
    """`source[start:end] == text`; stripped of surrounding whitespace."""

    start: int
    end: int
    text: str


#: One verification splits the same passages and answer in many checks: texts up to
#: 10,000 characters keep their sentences (2,048 texts, `memo.py`).
@memoise_text(max_chars=10_000, size=2_048)
def split_sentences(text: str) -> list[Sentence]:
    """Non-empty sentences of `text` in order, with offsets into `text`.

    Abbreviations ("Dr.", "e.g.", "U.S.") and single-letter initials do
    not end a sentence.
    """
    pieces: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY_RE.finditer(text):
        before = text[start : m.start()]
        if before.endswith(".") and "\n" not in m.group() and _ends_with_abbreviation(before):
            continue
        # Surrounding whitespace is trimmed below, so the match end is a safe cut.
        pieces.append((start, m.end()))
        start = m.end()
    pieces.append((start, len(text)))
    out: list[Sentence] = []
    for s, e in pieces:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append(Sentence(s, e, text[s:e]))
    return out


def _ends_with_abbreviation(chunk: str) -> bool:
    last = chunk.rstrip().rsplit(None, 1)[-1] if chunk.strip() else ""
    word = last.rstrip(".").lower()
    if not word:
        return False
    if len(word) == 1 and word.isalpha():  # an initial: "J. K. Rowling"
        return True
    return word in _ABBREVIATIONS


def sentence_index_at(sentences: list[Sentence], start: int, end: int) -> int | None:
    """Index of the sentence overlapping [start, end) the most (None when nothing overlaps)."""
    best: int | None = None
    best_overlap = 0
    for i, s in enumerate(sentences):
        overlap = min(end, s.end) - max(start, s.start)
        if overlap > best_overlap:
            best, best_overlap = i, overlap
    return best


def sentence_at(sentences: list[Sentence], start: int, end: int) -> Sentence | None:
    """The sentence overlapping [start, end) the most (None when nothing overlaps)."""
    i = sentence_index_at(sentences, start, end)
    return None if i is None else sentences[i]


#: Clauses are compared, not whole sentences: "Dogs are not allowed, but cats are
#: welcome" holds a negated clause and an affirmed one, and ", and" joins two statements
#: often enough ("revenue rose 6 %, and the CEO said ...") that each side stands alone.
_CLAUSE_BREAK = re.compile(
    r";|:\s|,?\s+(?:but|while|whereas|although|though|yet)\b|,\s+(?:and|so|which)\b",
    re.IGNORECASE,
)


def clause_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every clause of `text`: its sentences cut at contrastive
    conjunctions, semicolons, colons and ", and / so / which"."""
    out = []
    for sentence in split_sentences(text):
        start = sentence.start
        for brk in _CLAUSE_BREAK.finditer(text, sentence.start, sentence.end):
            out.append((start, brk.start()))
            start = brk.end()
        out.append((start, sentence.end))
    return [(a, b) for a, b in out if text[a:b].strip()]


#: A finite verb or auxiliary: what a statement has and a heading ("Deleting your
#: account.") lacks.
_FINITE = re.compile(
    r"\b(?:is|are|was|were|be|been|can|cannot|could|will|would|must|should|may|might|do|does|"
    r"did|has|have|had)\b|n['’]t\b",
    re.IGNORECASE,
)
#: A clause of at most this many words and no finite verb is a heading or a label.
HEADING_WORDS = 4


def states_something(clause: str) -> bool:
    """Whether a context clause is a statement that a negation could flip: not a table
    row ("| Tariff | Exit fee | Green |") and not a short verbless heading. "It is not
    dishwasher safe" is one."""
    if clause.count("|") >= 2:
        return False
    words = re.findall(r"[A-Za-z]+", clause)
    return len(words) > HEADING_WORDS or bool(_FINITE.search(clause))
