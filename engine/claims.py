"""The claims of an answer, the sentences to search evidence for when the answer came
without a context. Every sentence is a claim: one with no figure, date or name can be
as wrong as one with ("X is not case sensitive"). Sentences that state figures, dates,
named entities or external references come first, since searches may be capped
(`max_queries`); the caller reports every claim it did not search, never drops one."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .scoring.typed_values import values
from .text.sentences import split_sentences

_ENTITY = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'’-]*[a-z][\w'’-]*(?:\s+[A-Z][\w'’-]+)*")
_REFERENCE = re.compile(
    r"https?://|\[\d+\]|\baccording to\b|\bet al\.|\b(?:study|report|survey|paper)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d")


@dataclass(frozen=True)
class Claim:
    start: int  # offsets into the answer
    end: int
    text: str
    markers: tuple[str, ...]  # figure | date | entity | reference


def _markers(sentence: str) -> tuple[str, ...]:
    kinds = {v.kind for v in values(sentence)}
    found = []
    if kinds & {"date", "year", "time"}:
        found.append("date")
    if kinds & {"quantity", "money", "percent"} or _NUMBER.search(sentence):
        found.append("figure")
    if _ENTITY.search(sentence.strip()):
        found.append("entity")
    if _REFERENCE.search(sentence):
        found.append("reference")
    return tuple(found)


def checkable_claims(answer: str) -> list[Claim]:
    """Every non-empty sentence of the answer: the marked ones first, each group in
    answer order."""
    sentences = [
        Claim(s.start, s.end, answer[s.start : s.end], _markers(answer[s.start : s.end]))
        for s in split_sentences(answer)
        if answer[s.start : s.end].strip()
    ]
    return [c for c in sentences if c.markers] + [c for c in sentences if not c.markers]
