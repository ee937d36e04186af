"""Label flagged spans (contradiction / unsupported / entailed) and attach their evidence.

A span's claim is judged against the single best-matching context sentence
(`evidence.EvidenceIndex`). Conflicts are checked first, because a span can
share every word with its evidence and still flip a number or a negation;
only a span with no conflict whose content words all occur in the evidence
is dropped as entailed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cache

from ..text.embeddings import Encoder
from ..text.sentences import Sentence, sentence_at, split_sentences
from ..text.words import content_keys, is_content, tokenize
from ..types import DetectionInput, Evidence, Span
from .conflicts import (
    date_conflict,
    entity_conflict,
    is_year,
    negation_conflict,
    number_conflict,
    numbers,
    quantities,
    unit_conflict,
)
from .evidence import EvidenceIndex

ENTAILED_REST_OVERLAP = 0.5  # a span of function words only is entailed if its sentence is


def explain_spans(
    item: DetectionInput, spans: Sequence[Span], encoder: Encoder | None = None
) -> list[Span]:
    """Copies of `spans` with `label`, `evidence` and `reason` set; entailed spans are omitted.

    Span offsets stay answer offsets; `Evidence` carries the passage index and
    offsets into that passage. Input spans are not modified.
    """
    if not spans:
        return []
    index = EvidenceIndex(item.context, encoder)
    answer_sentences = split_sentences(item.response)
    context_keys = {k for s in index.sentences for k in s.keys}
    sentences = [
        sentence_at(answer_sentences, span.start, span.end)
        or Sentence(span.start, span.end, span.text)
        for span in spans
    ]
    # The window (span plus neighbours) steers the match to the sentence about
    # this span when the answer sentence makes several claims.
    windows = [
        _window(item.response, sent, span) for sent, span in zip(sentences, spans, strict=True)
    ]
    evidences = index.best_many(
        [(sent.text, window) for sent, window in zip(sentences, windows, strict=True)]
    )
    # What each context sentence states, worked out once however many spans need it.
    stated = cache(_stated_kinds)
    out: list[Span] = []
    for span, sentence, window, evidence in zip(spans, sentences, windows, evidences, strict=True):
        if evidence is None:
            out.append(replace(span, label="unsupported", evidence=None, reason="no context"))
            continue
        evidence_keys = frozenset(content_keys(evidence.text))
        rest = _blank(item.response, sentence, span)
        rest_overlap = index.recall(content_keys(rest), evidence_keys)
        conflict = (
            number_conflict(span.text, evidence.text)
            or date_conflict(span.text, evidence.text)
            or unit_conflict(window, evidence.text)
            # Polarity concerns the whole claim, span included ("was gold" vs
            # "was not painted gold"), so it is gated on the full sentence's overlap.
            or negation_conflict(
                sentence.text,
                evidence.text,
                index.recall(content_keys(sentence.text), evidence_keys),
            )
            or entity_conflict(
                (span.start - sentence.start, span.end - sentence.start),
                sentence.text,
                evidence.text,
                rest_overlap,
            )
        )
        if not conflict:
            # A flagged number may sit in a sentence that best matches another
            # context sentence ("built in 1950" next to "Construction: 1887-1889"):
            # compare it with the best context sentence stating the same kind of
            # quantity (a year for a year, a length for a length).
            typed = _typed_evidence(index, sentence.text, window, span.text, stated)
            if typed is not None and typed.text != evidence.text:
                typed_conflict = number_conflict(span.text, typed.text) or unit_conflict(
                    window, typed.text
                )
                if typed_conflict:
                    conflict, evidence = typed_conflict, typed
        if conflict:
            out.append(replace(span, label="contradiction", evidence=evidence, reason=conflict))
            continue
        span_keys = content_keys(span.text)
        if span_keys <= evidence_keys and (span_keys or rest_overlap >= ENTAILED_REST_OVERLAP):
            continue  # entailed: everything the span says is in its evidence
        out.append(
            replace(
                span,
                label="unsupported",
                evidence=evidence,
                reason=_unsupported_reason(span.text, evidence_keys, context_keys),
            )
        )
    return out


def _stated_kinds(text: str) -> tuple[bool, frozenset[str]]:
    """Whether `text` states a year, and the units of the quantities it states."""
    return any(is_year(n) for n in numbers(text)), frozenset(u for _, u in quantities(text))


def _typed_evidence(
    index: EvidenceIndex,
    sentence: str,
    window: str,
    span_text: str,
    stated: Callable[[str], tuple[bool, frozenset[str]]],
) -> Evidence | None:
    """The best context sentence holding a year (for a span with a year) or a quantity in
    the same unit (for a span with a measured quantity); None when the span has neither.
    `stated` is `_stated_kinds`, memoised over the context's sentences."""
    span_numbers = numbers(span_text)
    if not span_numbers:
        return None
    years = any(is_year(n) for n in span_numbers)
    units = {u for v, u in quantities(window) if v in span_numbers}
    if not years and not units:
        return None

    def same_kind(text: str) -> bool:
        has_year, stated_units = stated(text)
        return (years and has_year) or not units.isdisjoint(stated_units)

    # The query repeats the span's first look-up, so the index re-encodes nothing for it.
    return index.best_many([(sentence, span_text)], allowed=same_kind)[0]


def _blank(response: str, sentence: Sentence, span: Span) -> str:
    """The span's sentence with the span itself removed: what the rest of the claim says."""
    s, e = max(span.start, sentence.start), min(span.end, sentence.end)
    if s >= e:
        return sentence.text
    return response[sentence.start : s] + " " + response[e : sentence.end]


def _window(response: str, sentence: Sentence, span: Span) -> str:
    """The span widened by one token each side (within its sentence), so "5 [miles]"
    keeps the number its unit belongs to."""
    off = sentence.start
    words = [w for w in tokenize(sentence.text) if w.kind != "symbol"]
    before = [w for w in words if w.end + off <= span.start]
    after = [w for w in words if w.start + off >= span.end]
    start = before[-1].start + off if before else span.start
    end = after[0].end + off if after else span.end
    return response[min(start, span.start) : max(end, span.end)]


def _unsupported_reason(span_text: str, evidence_keys: frozenset[str], context: set[str]) -> str:
    words = [w for w in tokenize(span_text) if is_content(w)]
    absent = list(dict.fromkeys(w.surface for w in words if w.norm not in context))
    if absent:
        quoted = ", ".join(f"'{w}'" for w in absent[:5])
        return f"not found in the context: {quoted}"
    elsewhere = [w.surface for w in words if w.norm not in evidence_keys]
    if elsewhere:
        return "its words occur in the context, but no context sentence states this claim"
    return "the detector found this passage unsupported by the context"
