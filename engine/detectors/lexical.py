"""A deterministic lexical-grounding detector: the offline fallback and the benchmark baseline.

Each answer token gets a hallucination probability from one question:
does its normalised form occur anywhere in the context? Absent numbers,
dates and names are the classic hallucinations, so they score highest;
function words carry no grounding evidence and score low whatever happens.
An absent ordinary word is discounted when the rest of its sentence is
grounded, since it is then more likely a paraphrase than a fabrication.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..scoring.citations import citation_markers
from ..text.sentences import split_sentences
from ..text.words import MONTHS, STOPWORDS, Word, is_content, tokenize
from ..types import Coverage, DetectionInput, TokenPrediction, TokenProb

NEGATIONS = frozenset({"not", "no", "never", "none", "neither", "nor", "nothing", "nobody"})


@dataclass(frozen=True)
class LexicalWeights:
    """Probabilities per token class. With the defaults an absent content word crosses 0.5
    unless most of its sentence is grounded (see `sentence_support`)."""

    symbol: float = 0.02
    stopword: float = 0.05
    present: float = 0.05
    present_by_stem: float = 0.12
    absent_word: float = 0.7
    absent_proper_noun: float = 0.85
    absent_number: float = 0.95
    absent_negation: float = 0.6
    absent_cjk: float = 0.7
    #: How far a grounded sentence pulls an absent word down: an unknown word in
    #: an otherwise grounded sentence is more often a paraphrase than a fabrication.
    #: Numbers, dates, names and negations are exempt (a paraphrase keeps them).
    sentence_support: float = 0.35  # tuned on begin/dev + faithdial_audit (tuning sets)


class LexicalDetector:
    """`Detector` scoring answer tokens by whether the context contains them."""

    name = "lexical"
    languages = frozenset({"en"})

    def __init__(self, weights: LexicalWeights | None = None) -> None:
        self.weights = weights or LexicalWeights()

    def predict(self, items: Sequence[DetectionInput]) -> list[TokenPrediction]:
        """One `TokenPrediction` per item, in order; never raises on empty context."""
        return [self._predict_one(item) for item in items]

    def _predict_one(self, item: DetectionInput) -> TokenPrediction:
        context_words = [w for passage in item.context for w in tokenize(passage)]
        keys = {w.norm for w in context_words}
        # Surface forms too, so "U.S." style tokens and exact casing hits count as present.
        surfaces = {w.surface.casefold() for w in context_words}
        answer_words = tokenize(item.response)
        # Once per item, and only when the answer negates: a scan of the context vocabulary.
        context_negates = any(_is_negation(w.surface.casefold()) for w in answer_words) and any(
            _is_negation(s) for s in surfaces
        )
        # "[1]" is a citation, not a claim: citations are checked by their own rules.
        markers = [(s, e) for s, e, _ in citation_markers(item.response)]
        probs = [
            self.weights.symbol
            if any(s <= w.start and w.end <= e for s, e in markers)
            else self._prob(w, i, answer_words, keys, surfaces, context_negates)
            for i, w in enumerate(answer_words)
        ]
        if self.weights.sentence_support > 0:
            probs = self._discount_grounded_sentences(item.response, answer_words, probs)
        tokens = [TokenProb(w.start, w.end, p) for w, p in zip(answer_words, probs, strict=True)]
        context_chars = sum(len(p) for p in item.context)
        coverage = Coverage(
            context_chars_given=context_chars,
            context_chars_checked=context_chars,
            context_tokens_given=len(context_words),
            context_tokens_checked=len(context_words),
            answer_tokens_given=len(answer_words),
            answer_tokens_checked=len(answer_words),
            answer_chars_checked=len(item.response),
            windows=1,
        )
        return TokenPrediction(
            tokens=tokens,
            coverage=coverage,
            detector_tokens=len(context_words) + len(answer_words),
        )

    def _discount_grounded_sentences(
        self, response: str, words: list[Word], probs: list[float]
    ) -> list[float]:
        """Scale absent-word probabilities by how grounded the rest of their sentence is.

        Numbers, dates, names and negations are exempt: a paraphrase keeps them,
        and swapping them inside an otherwise faithful sentence is the classic
        hallucination."""
        wt = self.weights
        out = list(probs)
        for sentence in split_sentences(response):
            idx = [
                i
                for i, w in enumerate(words)
                if sentence.start <= w.start < sentence.end and is_content(w)
            ]
            if len(idx) < 2:
                continue
            absent = [i for i in idx if probs[i] > 0.5]
            grounded_share = 1.0 - len(absent) / len(idx)
            for i in absent:
                if _paraphrasable(words[i], i, words):
                    out[i] = probs[i] * (1.0 - wt.sentence_support * grounded_share)
        return out

    def _prob(
        self,
        w: Word,
        index: int,
        words: list[Word],
        keys: set[str],
        surfaces: set[str],
        context_negates: bool,
    ) -> float:
        wt = self.weights
        if w.kind == "symbol":
            return wt.symbol
        lowered = w.surface.casefold()
        if w.kind == "number":
            return wt.present if w.norm in keys else wt.absent_number
        if w.kind == "cjk":
            return wt.present if w.surface in surfaces else wt.absent_cjk
        if _is_negation(lowered):
            # A negation the context never uses is a likely polarity flip.
            return wt.stopword if context_negates else wt.absent_negation
        if lowered in STOPWORDS:
            return wt.stopword
        if lowered in surfaces:
            return wt.present
        if w.norm in keys:
            return wt.present_by_stem
        if lowered in MONTHS:
            return wt.absent_number  # a month is part of a date
        if _is_proper_noun(w, index, words):
            return wt.absent_proper_noun
        return wt.absent_word


def _is_negation(lowered: str) -> bool:
    return lowered in NEGATIONS or lowered.endswith("n't")


def _paraphrasable(w: Word, index: int, words: list[Word]) -> bool:
    lowered = w.surface.casefold()
    if w.kind == "number" or lowered in MONTHS or _is_negation(lowered):
        return False
    return not _is_proper_noun(w, index, words)


def _is_proper_noun(w: Word, index: int, words: list[Word]) -> bool:
    """Capitalised and not merely sentence-initial (first token or after . ! ?)."""
    if not w.surface[:1].isupper():
        return False
    if index == 0:
        return False
    prev = words[index - 1]
    return not (prev.kind == "symbol" and prev.surface in ".!?:\"'“")
