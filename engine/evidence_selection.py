"""Evidence selection: read the context sentences that can bear on the answer, not all.

A detector that reads the whole context pays for every token of it, and most of a long
context says nothing about a given answer sentence. Before the token model, each answer
sentence picks the context sentences that can support or contradict it:

* lexical alignment: shared content words (stemmed) and numbers, each weighted by how
  rare it is among the context's sentences (a word every sentence uses aligns nothing);
* typed values: a number, date or amount the answer states counts double, since a
  changed value is the commonest error and its evidence is the sentence that states the
  value it replaced;
* neighbours: the sentence before and after each pick, so a pronoun ("It opened in
  1889") keeps the sentence that names what it refers to.

The picks of every answer sentence (and of the question) are taken in rounds, best first,
until the budget is spent; runs of picked sentences of one passage become one piece, in the
passage's order, so evidence offsets map back to the request's passages. A context that
already fits the budget is read whole: selection changes nothing there.

No model runs here: it is linear in the context, so the detector's cost grows with the
answer. It is a policy choice (`evidence: "selected"`); the default stays the whole
context (`"all"`) because on a 150-row FaithBench sample selection cost 0.008 AUROC
(docs/benchmarks.md "Cost that grows with the answer").
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .text.sentences import split_sentences
from .text.words import content_keys

#: Below this many context characters the whole context is read (about one model window
#: beside a typical answer).
MIN_BUDGET_CHARS = 2_000
#: The budget grows with the answer: this many context characters per answer character.
CHARS_PER_ANSWER_CHAR = 3
#: Context sentences picked per answer sentence (before neighbours).
PER_SENTENCE = 3
#: A key shared with a number weighs this much more than a word.
NUMBER_WEIGHT = 2.0


@dataclass(frozen=True)
class Piece:
    """`text` is `context[passage][start : start + len(text)]`."""

    passage: int
    start: int
    text: str


@dataclass(frozen=True)
class Selection:
    pieces: tuple[Piece, ...]
    chars_given: int

    @property
    def chars_selected(self) -> int:
        return sum(len(p.text) for p in self.pieces)


def budget_for(response: str) -> int:
    return max(MIN_BUDGET_CHARS, CHARS_PER_ANSWER_CHAR * len(response))


def select_evidence(
    context: Sequence[str], response: str, query: str | None = None, budget: int | None = None
) -> Selection | None:
    """The pieces of `context` to read for `response`; None when the whole context fits
    `budget` (default `budget_for(response)`) or nothing aligns (then all is read)."""
    given = sum(len(p) for p in context)
    limit = budget_for(response) if budget is None else budget
    if given <= limit:
        return None
    sentences = [
        (i, s.start, s.end, content_keys(passage[s.start : s.end]))
        for i, passage in enumerate(context)
        for s in split_sentences(passage)
        if passage[s.start : s.end].strip()
    ]
    if not sentences:
        return None
    df = Counter(k for *_, keys in sentences for k in keys)
    n = len(sentences)

    def weight(key: str) -> float:
        idf = math.log(1.0 + n / df[key])
        return idf * (NUMBER_WEIGHT if any(ch.isdigit() for ch in key) else 1.0)

    claims = [content_keys(response[s.start : s.end]) for s in split_sentences(response)]
    if query:
        claims.append(content_keys(query))
    ranked: list[list[int]] = []
    for keys in claims:
        scored = [
            (sum(weight(k) for k in keys & theirs), j)
            for j, (*_, theirs) in enumerate(sentences)
            if keys & theirs
        ]
        scored.sort(key=lambda x: (-x[0], x[1]))
        ranked.append([j for _, j in scored[:PER_SENTENCE]])
    if not any(ranked):
        return None
    chosen: set[int] = set()
    spent = 0

    def take(j: int) -> bool:
        nonlocal spent
        if j in chosen or not 0 <= j < n:
            return True
        i, s, e, _ = sentences[j]
        if spent + (e - s) > limit and chosen:
            return False
        chosen.add(j)
        spent += e - s
        return True

    full = False
    for rank in range(PER_SENTENCE):
        for picks in ranked:
            if rank >= len(picks):
                continue
            j = picks[rank]
            full = not take(j)
            for near in (j - 1, j + 1):  # neighbours in the same passage only
                if not full and 0 <= near < n and sentences[near][0] == sentences[j][0]:
                    full = not take(near)
            if full:
                break
        if full:
            break
    return Selection(_pieces(context, sentences, chosen), given)


def _pieces(
    context: Sequence[str], sentences: list[tuple[int, int, int, set[str]]], chosen: set[int]
) -> tuple[Piece, ...]:
    """Runs of chosen sentences of one passage, joined into one piece each, in order."""
    out: list[Piece] = []
    run: list[int] = []

    def close() -> None:
        if run:
            i, start = sentences[run[0]][0], sentences[run[0]][1]
            end = sentences[run[-1]][2]
            out.append(Piece(i, start, context[i][start:end]))
            run.clear()

    for j in sorted(chosen):
        if run and (j != run[-1] + 1 or sentences[j][0] != sentences[run[-1]][0]):
            close()
        run.append(j)
    close()
    return tuple(out)
