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
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..text.embeddings import Encoder
from ..text.sentences import split_sentences
from ..text.words import content_keys
from ..types import Evidence

RERANK_CANDIDATES = 5
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
        self._vectors: dict[int, np.ndarray] = {}  # context sentence index -> vector
        self._query_vectors: dict[str, np.ndarray] = {}  # answer sentence text -> vector

    def idf(self, key: str) -> float:
        return self._idf.get(key, self._unseen_idf)

    def recall(self, keys: set[str] | frozenset[str], target: frozenset[str]) -> float:
        """IDF-weighted share of `keys` found in `target` (1.0 for no keys)."""
        total = sum(self.idf(k) for k in keys)
        if total == 0:
            return 1.0
        return sum(self.idf(k) for k in keys if k in target) / total

    def best_many(
        self,
        queries: Sequence[tuple[str, str]],
        allowed: Callable[[str], bool] | None = None,
    ) -> list[Evidence | None]:
        """The best-matching context sentence for each (answer sentence, span text) pair,
        with its offsets into its passage; one encoder call for all of them.

        `similarity` is in [0, 1]. None only when the context has no sentences or,
        with `allowed`, when it accepts none of them (only those it accepts compete)."""
        if not self.sentences:
            return [None] * len(queries)
        ranked = [self._lexical(sentence, span, allowed) for sentence, span in queries]
        cosines: list[dict[int, float]] = [{} for _ in queries]
        if self.encoder is not None:
            cosines = self._cosines([q[0] for q in queries], [list(r) for r in ranked])
        out: list[Evidence | None] = []
        for lexical, cos in zip(ranked, cosines, strict=True):
            if not lexical:  # `allowed` accepted no sentence
                out.append(None)
                continue
            scores = {
                i: (1 - EMBEDDING_WEIGHT) * lex + EMBEDDING_WEIGHT * max(cos[i], 0.0)
                if i in cos
                else lex
                for i, lex in lexical.items()
            }
            # Ties go to the earlier sentence so results are stable.
            top = min(scores, key=lambda i: (-scores[i], i))
            s = self.sentences[top]
            out.append(
                Evidence(
                    passage_index=s.passage_index,
                    start=s.start,
                    end=s.end,
                    text=s.text,
                    similarity=round(min(max(scores[top], 0.0), 1.0), 4),
                )
            )
        return out

    def _lexical(
        self, answer_sentence: str, span_text: str, allowed: Callable[[str], bool] | None = None
    ) -> dict[int, float]:
        """Lexical scores of the top `RERANK_CANDIDATES` (allowed) context sentences, by index."""
        sentence_keys = content_keys(answer_sentence)
        span_keys = content_keys(span_text) if span_text else set()
        scores = {
            i: (1 - SPAN_WEIGHT) * self.recall(sentence_keys, s.keys)
            + SPAN_WEIGHT * (self.recall(span_keys, s.keys) if span_keys else 0.0)
            for i, s in enumerate(self.sentences)
            if allowed is None or allowed(s.text)
        }
        order = sorted(scores, key=lambda i: (-scores[i], i))
        return {i: scores[i] for i in order[:RERANK_CANDIDATES]}

    def _cosines(self, texts: list[str], candidates: list[list[int]]) -> list[dict[int, float]]:
        """Cosine of each text with each of its candidate sentences; one batched encode
        for everything not yet cached (query and context sentence vectors are kept per
        index, so a second look-up for the same answer sentence encodes nothing new)."""
        assert self.encoder is not None
        queries = list(
            dict.fromkeys(
                t
                for t, c in zip(texts, candidates, strict=True)
                if c and t.strip() and t not in self._query_vectors
            )
        )
        missing = sorted({i for c in candidates for i in c if i not in self._vectors})
        if queries or missing:
            vectors = self.encoder.encode(queries + [self.sentences[i].text for i in missing])
            self._query_vectors.update(zip(queries, vectors[: len(queries)], strict=True))
            self._vectors.update(zip(missing, vectors[len(queries) :], strict=True))
        out: list[dict[int, float]] = []
        for text, cands in zip(texts, candidates, strict=True):
            q = self._query_vectors.get(text)
            out.append({} if q is None else {i: float(np.dot(q, self._vectors[i])) for i in cands})
        return out
