"""The answer-level signals the combiner reads (Detection v3, item 6).

Each signal is a number computed from what the pipeline already found, so that one
learned model (`combiner.py`) can weigh them by how well they separate faithful from
wrong answers, instead of the hand-shifted response head alone:

* the response head's inputs and its own probability (`head_*`, from the detector);
* typed findings by verdict: values that match the context, values it lacks, value
  conflicts, and clause conflicts (negation, antonym, role, table row);
* the spans after `evidence_rules.precise_labels`: the strongest unsupported span on
  a content word, the share of the answer inside spans, a confirmed contradiction;
* alignment: for each answer sentence, the share of its content words the context
  (or the question) uses, and its best embedding similarity to one context sentence;
  the weakest sentence and the mean;
* novelty: numbers and capitalised names the context and question never use;
* negation mismatch: answer sentences whose best-aligned context sentence differs from
  them in having a negation.

Every signal is finite and in a fixed range, so the combiner never extrapolates.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import numpy as np

from ..text.embeddings import Encoder
from ..text.sentences import split_sentences
from ..text.words import content_keys, is_content, tokenize
from ..types import DetectionInput, Span
from .findings import Finding

VALUE_KINDS = frozenset({"time", "date", "year", "quantity", "money", "percent", "unit"})
#: At most this many context sentences are embedded per answer (the best lexical matches).
MAX_CONTEXT_SENTENCES = 48
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nothing|nobody|cannot|without|neither|nor)\b|n['’]t\b",
    re.IGNORECASE,
)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*")

SIGNALS = (
    "head_prob",
    "model_max",
    "model_top3",
    "lexical_max",
    "unsupported_share",
    "content_words_log",
    "value_match",
    "value_absent",
    "value_conflict",
    "clause_conflict",
    "contradiction",
    "unsupported_max",
    "span_share",
    "lex_min",
    "lex_mean",
    "sim_min",
    "sim_mean",
    "novel_numbers",
    "novel_names",
    "negation_mismatch",
)


def answer_signals(
    item: DetectionInput,
    spans: Sequence[Span],
    findings: Sequence[Finding],
    head: Mapping[str, float] | None,
    encoder: Encoder | None,
) -> dict[str, float]:
    """The combiner's inputs for one answer (`SIGNALS`, every one in [0, ~5])."""
    out = dict.fromkeys(SIGNALS, 0.0)
    if head:
        for name in ("head_prob", "model_max", "model_top3", "lexical_max", "unsupported_share"):
            out[name] = float(head.get(name, 0.0))
        out["content_words_log"] = float(head.get("content_words_log", 0.0))
    out.update(_finding_counts(findings))
    out.update(_span_signals(item.response, spans))
    out.update(_alignment(item, encoder))
    out.update(_novelty(item))
    return out


def _finding_counts(findings: Sequence[Finding]) -> dict[str, float]:
    value = [f for f in findings if f.kind in VALUE_KINDS]
    clause = [f for f in findings if f.kind not in VALUE_KINDS]
    return {
        "value_match": math.log1p(sum(f.verdict == "match" for f in value)),
        "value_absent": math.log1p(sum(f.verdict == "absent" for f in value)),
        "value_conflict": math.log1p(sum(f.verdict == "conflict" for f in value)),
        "clause_conflict": math.log1p(sum(f.verdict == "conflict" for f in clause)),
    }


def _span_signals(response: str, spans: Sequence[Span]) -> dict[str, float]:
    content = [s for s in spans if any(is_content(w) for w in tokenize(s.text))]
    chars = sum(s.end - s.start for s in spans)
    return {
        "contradiction": float(any(s.label == "contradiction" for s in spans)),
        "unsupported_max": max(
            (s.confidence for s in content if s.label == "unsupported"), default=0.0
        ),
        "span_share": min(1.0, chars / max(1, len(response))),
    }


def _alignment(item: DetectionInput, encoder: Encoder | None) -> dict[str, float]:
    answer = [s.text for s in split_sentences(item.response) if content_keys(s.text)]
    if not answer:
        return {
            "lex_min": 1.0,
            "lex_mean": 1.0,
            "sim_min": 1.0,
            "sim_mean": 1.0,
            "negation_mismatch": 0.0,
        }
    context = [s.text for p in item.context for s in split_sentences(p)]
    context_keys = [content_keys(s) for s in context]
    known = set().union(*context_keys, content_keys(item.query or ""))
    lex, best = [], []
    for sentence in answer:
        keys = content_keys(sentence)
        lex.append(len(keys & known) / len(keys))
        overlap = [len(keys & k) for k in context_keys]
        best.append(int(np.argmax(overlap)) if overlap and max(overlap) > 0 else -1)
    mismatch = sum(
        b >= 0 and bool(_NEGATION.search(s)) != bool(_NEGATION.search(context[b]))
        for s, b in zip(answer, best, strict=True)
    )
    sims = _similarities(answer, context, context_keys, encoder)
    return {
        "lex_min": min(lex),
        "lex_mean": sum(lex) / len(lex),
        "sim_min": min(sims),
        "sim_mean": sum(sims) / len(sims),
        "negation_mismatch": math.log1p(mismatch),
    }


def _similarities(
    answer: list[str], context: list[str], context_keys: list[set[str]], encoder: Encoder | None
) -> list[float]:
    """Per answer sentence, its best cosine similarity to one context sentence (the
    lexical share when no encoder is installed)."""
    if encoder is None or not context:
        return [1.0] * len(answer)
    keys = set().union(*(content_keys(s) for s in answer))
    ranked = sorted(range(len(context)), key=lambda i: -len(context_keys[i] & keys))
    chosen = [context[i] for i in ranked[:MAX_CONTEXT_SENTENCES]]
    vectors = encoder.encode(answer + chosen)
    a, c = vectors[: len(answer)], vectors[len(answer) :]
    return [float(max(0.0, x)) for x in (a @ c.T).max(axis=1)]


def _novelty(item: DetectionInput) -> dict[str, float]:
    source = " ".join(item.context) + " " + (item.query or "")
    known = {w.norm for w in tokenize(source)}
    numbers = [w for w in tokenize(item.response) if w.kind == "number"]
    novel_numbers = sum(w.norm not in known for w in numbers)
    lowered = source.casefold()
    names = {m.group() for m in _NAME.finditer(item.response)}
    novel_names = sum(n.casefold() not in lowered for n in names)
    return {
        "novel_numbers": novel_numbers / len(numbers) if numbers else 0.0,
        "novel_names": math.log1p(novel_names),
    }
