"""Find the context sentence that best supports (or refutes) a piece of the answer.

Ranking is lexical first (IDF-weighted recall of the answer sentence's
content words, plus the flagged span's own words), which is cheap and
exact for names and numbers; when the MiniLM encoder is available the
top lexical candidates are re-ranked by a blend with cosine similarity,
which rescues paraphrases that share few words.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .embeddings import Encoder
from .sentences import split_sentences
from .types import Evidence
from .words import content_keys

RERANK_CANDIDATES = 8
SPAN_WEIGHT = 0.5  # share of the lexical score that comes from the span's own words
EMBEDDING_WEIGHT = 0.5  # share of the final score from cosine similarity when re-ranking


@dataclass(frozen=True)
class ContextSentence:
    passage_index: int
    start: int
    end: int
    text: str
    keys: frozenset[str]


class EvidenceIndex:
    """All sentences of all passages of one context, ready to be matched against the answer."""

    def __init__(self, context: Sequence[str], encoder: Encoder | None = None) -> None:
        self.sentences = [
            ContextSentence(i, s.start, s.end, s.text, frozenset(content_keys(s.text)))
            for i, passage in enumerate(context)
            for s in split_sentences(passage)
        ]
        df: Counter[str] = Counter(k for s in self.sentences for k in s.keys)
        n = max(len(self.sentences), 1)
        # Smooth IDF: rare words (names, numbers) weigh more than ubiquitous ones.
        self._idf = {k: math.log(1.0 + n / c) for k, c in df.items()}
        self._unseen_idf = math.log(1.0 + n)
        self.encoder = encoder
        self._vectors: dict[int, np.ndarray] = {}

    def idf(self, key: str) -> float:
        return self._idf.get(key, self._unseen_idf)

    def recall(self, keys: set[str] | frozenset[str], target: frozenset[str]) -> float:
        """IDF-weighted share of `keys` found in `target` (1.0 for no keys)."""
        total = sum(self.idf(k) for k in keys)
        if total == 0:
            return 1.0
        return sum(self.idf(k) for k in keys if k in target) / total

    def best(self, answer_sentence: str, span_text: str = "") -> Evidence | None:
        """The best-matching context sentence, with its offsets into its passage.

        `similarity` is in [0, 1]. None only when the context has no sentences.
        """
        if not self.sentences:
            return None
        sentence_keys = content_keys(answer_sentence)
        span_keys = content_keys(span_text) if span_text else set()
        lexical = [
            (1 - SPAN_WEIGHT) * self.recall(sentence_keys, s.keys)
            + SPAN_WEIGHT * (self.recall(span_keys, s.keys) if span_keys else 0.0)
            for s in self.sentences
        ]
        # Ties go to the earlier sentence so results are stable.
        order = sorted(range(len(self.sentences)), key=lambda i: (-lexical[i], i))
        candidates = order[:RERANK_CANDIDATES]
        scores = {i: lexical[i] for i in candidates}
        if self.encoder is not None and answer_sentence.strip():
            cosines = self._cosines(answer_sentence, candidates)
            for i, cos in zip(candidates, cosines, strict=True):
                scores[i] = (1 - EMBEDDING_WEIGHT) * lexical[i] + EMBEDDING_WEIGHT * max(cos, 0.0)
        top = min(candidates, key=lambda i: (-scores[i], i))
        s = self.sentences[top]
        return Evidence(
            passage_index=s.passage_index,
            start=s.start,
            end=s.end,
            text=s.text,
            similarity=round(min(max(scores[top], 0.0), 1.0), 4),
        )

    def _cosines(self, text: str, indices: list[int]) -> list[float]:
        assert self.encoder is not None
        missing = [i for i in indices if i not in self._vectors]
        vectors = self.encoder.encode([text] + [self.sentences[i].text for i in missing])
        for i, vec in zip(missing, vectors[1:], strict=True):
            self._vectors[i] = vec
        query = vectors[0]
        return [float(np.dot(query, self._vectors[i])) for i in indices]
