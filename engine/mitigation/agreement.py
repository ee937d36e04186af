"""Does another model's answer agree with a claim? Lexical overlap plus value checks.

A claim is compared with the most similar sentence of another answer:
- `agree`: that sentence covers the claim's content and states the same values;
- `conflict`: it talks about the same thing (enough overlap) but with different
  values (numbers, dates, names);
- `absent`: the other answer does not address it. Omission is not disagreement:
  models differ in how much they say, and only a conflict is worth a judge call.
The similarity function is injectable so a worker can use sentence embeddings
(the MiniLM wheel) instead of token overlap.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from .segments import Segment

Similarity = Callable[[str, str], float]
Stance = Literal["agree", "conflict", "absent"]

_STOP = frozenset(
    "a an the of in on at to for by with from and or but is are was were be been being it its "
    "this that these those as which who whom what when where how than then there their they "
    "he she his her we our you your i not no".split()
)
_TOKEN = re.compile(r"\$?\d[\d,]*(?:\.\d+)?%?|[A-Za-z][A-Za-z'-]*")
_VALUE = re.compile(r"\$?\d[\d,]*(?:\.\d+)?%?")


def content_words(text: str) -> set[str]:
    return {t.lower() for t in _TOKEN.findall(text) if t.lower() not in _STOP}


def values(text: str) -> set[str]:
    """Numbers, years and amounts, normalized so '1,083' equals '1083'."""
    return {v.replace(",", "").lstrip("$") for v in _VALUE.findall(text)}


def names(text: str) -> set[str]:
    """Capitalized words not opening a sentence: a cheap stand-in for named entities."""
    out = set()
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        words = _TOKEN.findall(sentence)
        for w in words[1:]:
            if w[0].isupper() and w.lower() not in _STOP:
                out.add(w.lower())
    return out


def lexical_similarity(a: str, b: str) -> float:
    """Share of the claim's content words the other sentence contains (0..1)."""
    wa, wb = content_words(a), content_words(b)
    if not wa:
        return 0.0
    return len(wa & wb) / len(wa)


@dataclass(frozen=True)
class Comparison:
    stance: Stance
    similarity: float
    other: str = ""  # the other answer's closest sentence


def compare(
    claim: str,
    other_segments: Sequence[Segment],
    similarity: Similarity = lexical_similarity,
    topic_threshold: float = 0.3,
    agree_threshold: float = 0.6,
) -> Comparison:
    """How one other answer stands on `claim`."""
    if not other_segments:
        return Comparison("absent", 0.0)
    best = max(other_segments, key=lambda s: similarity(claim, s.text))
    sim = similarity(claim, best.text)
    if sim < topic_threshold:
        return Comparison("absent", sim, best.text)
    va, vb = values(claim), values(best.text)
    na, nb = names(claim), names(best.text)
    if (va and vb and va.isdisjoint(vb)) or (na and nb and na.isdisjoint(nb)):
        return Comparison("conflict", sim, best.text)
    if va and vb and va != vb and not va <= vb:
        return Comparison("conflict", sim, best.text)
    return Comparison("agree" if sim >= agree_threshold else "absent", sim, best.text)


class _Encoder(Protocol):
    def encode(self, texts: Sequence[str]) -> Any: ...


def embedding_similarity(encoder: _Encoder, max_cache: int = 4096) -> Similarity:
    """Cosine similarity of sentence embeddings (e.g. `embeddings.get_encoder()`), clipped at 0.

    Sentences are encoded once and cached, because `compare` scores every
    claim against every sentence of every other answer. Values and names are
    still checked lexically by `compare`: embeddings rate "built in 1889" and
    "built in 1950" as near-identical, which is exactly the disagreement we need.
    """
    cache: dict[str, Any] = {}

    def vector(text: str) -> Any:
        if text not in cache:
            if len(cache) >= max_cache:
                cache.clear()
            cache[text] = encoder.encode([text])[0]
        return cache[text]

    def similarity(a: str, b: str) -> float:
        return max(0.0, float(vector(a) @ vector(b)))

    return similarity
