"""How the typed checks align an answer with its context: overlap thresholds, long contexts,
the sentence around a position."""

from __future__ import annotations

from collections.abc import Sequence

#: How much of an answer sentence's content must recur in a context sentence before a
#: polarity or antonym difference between them counts as a flip, not another statement.
SENTENCE_OVERLAP = 0.6
#: A long context (several documents) states many values and sentences about other
#: things: there a different value counts as a conflict only when its surroundings share
#: `LONG_SLOT_WORDS` content words with the answer value's, and a clause must match
#: `LONG_SENTENCE_OVERLAP` of its words, before a difference is read as a contradiction.
LONG_CONTEXT_CHARS = 1000
LONG_SLOT_WORDS = 2
LONG_SENTENCE_OVERLAP = 0.8
#: In any context, an amount is contradicted only by a context amount whose surroundings
#: (60 characters each side) share at least `SLOT_WORDS` content words with the answer
#: amount's: "£480 in hotel costs across both trips" and "£120 per night" are two
#: different quantities of one passage, not one quantity stated twice.
SLOT_WORDS = 3


def is_long(context: Sequence[str]) -> bool:
    return sum(len(p) for p in context) > LONG_CONTEXT_CHARS


def sentence_around(passage: str, start: int, end: int) -> tuple[int, int]:
    """The sentence (or line, in key: value data) of `passage` holding `[start, end)`."""
    left = max(passage.rfind(ch, 0, start) for ch in ".!?\n")
    rights = [i for i in (passage.find(ch, end) for ch in ".!?\n") if i >= 0]
    lo = left + 1
    while lo < start and passage[lo].isspace():
        lo += 1
    hi = min(rights) + 1 if rights else len(passage)
    return lo, min(hi, len(passage))
