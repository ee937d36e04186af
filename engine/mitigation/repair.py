"""No-LLM repair: fix what the detector's spans and evidence allow, and nothing more.

For tenants without an LLM (and the embedded default) this is the only
mitigation beyond a warning. It is deliberately conservative:
- a `contradiction` whose span holds one value (number, year, percentage, month)
  is replaced by the value in the same slot of the evidence, but only when
  exactly one evidence value fits that slot; otherwise the sentence is qualified;
- a sentence carrying an `unsupported` span is removed when the span is most of
  the sentence (the sentence *is* the claim), else qualified;
- the answer is never emptied: the last remaining sentence is qualified instead.
Every edit is reported as a `Change`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from ..text.sentences import sentence_index_at
from ..types import DetectionInput, DetectionResult, Span
from .added_text import unscored
from .result import Change, Iteration, MitigationResult, Redetect
from .segments import Segment, replace_segments, split_sentences

UnsupportedAction = Literal["auto", "remove", "qualify"]
DEFAULT_QUALIFIER = "(Not confirmed by the provided context) "

_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
VALUE_RE = re.compile(rf"\b(?:{_MONTHS})\b|\$?\d[\d,]*(?:\.\d+)?%?", re.I)
# A run of capitalized words: a cheap named-entity shape ("Paris", "Gustave Eiffel").
NAME_RE = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*")
_WORD = re.compile(r"[A-Za-z]+")


@dataclass(frozen=True)
class RepairSettings:
    unsupported: UnsupportedAction = "auto"
    qualifier: str = DEFAULT_QUALIFIER
    # Share of a sentence's letters a span must cover for "auto" to remove the sentence.
    remove_coverage: float = 0.5


def value_kind(token: str) -> str:
    """Coarse type of a value so a year is never swapped for a percentage."""
    t = token.lower().lstrip("$")
    if t.isalpha():
        return "month"
    if t.endswith("%"):
        return "percent"
    if token.startswith("$"):
        return "money"
    if re.fullmatch(r"1\d{3}|20\d{2}", t):
        return "year"
    return "number"


def _left_words(text: str, pos: int, n: int = 2) -> tuple[str, ...]:
    return tuple(w.lower() for w in _WORD.findall(text[max(0, pos - 60) : pos])[-n:])


def _slot_match(answer: str, at: int, evidence: str, candidates: list[re.Match[str]]) -> str | None:
    """The one candidate whose preceding words match those before position `at` of the answer."""
    slot = _left_words(answer, at)
    for n in (2, 1):
        want = slot[-n:]
        fits = {m.group() for m in candidates if _left_words(evidence, m.start(), n) == want}
        if want and len(fits) == 1:
            return fits.pop()
    return None


def wrong_value(span: Span) -> re.Match[str] | None:
    """The single value (else the single name) inside a span, which a repair would swap."""
    values = list(VALUE_RE.finditer(span.text))
    if len(values) == 1:
        return values[0]
    names = list(NAME_RE.finditer(span.text))
    if not values and len(names) == 1:
        return names[0]
    return None


def evidence_value(answer: str, span: Span) -> str | None:
    """The evidence value for the single value or name in a contradiction span, if unambiguous.

    A number/date/percentage/month may come from the only evidence value of its
    kind; a name needs the same slot (matching preceding words), because
    evidence sentences usually hold several names and guessing one is worse
    than qualifying the sentence.
    """
    if span.evidence is None or not span.evidence.text:
        return None
    evidence = span.evidence.text
    wrong = wrong_value(span)
    if wrong is None:
        return None
    at = span.start + wrong.start()
    if VALUE_RE.fullmatch(wrong.group()):
        kind = value_kind(wrong.group())
        candidates = [
            m
            for m in VALUE_RE.finditer(evidence)
            if value_kind(m.group()) == kind and m.group().lower() != wrong.group().lower()
        ]
        if len({m.group() for m in candidates}) == 1:
            return candidates[0].group()
        return _slot_match(answer, at, evidence, candidates) if candidates else None
    names = [m for m in NAME_RE.finditer(evidence) if m.group() not in answer]
    return _slot_match(answer, at, evidence, names) if names else None


def _letters(text: str) -> int:
    return sum(ch.isalnum() for ch in text)


def _decide_unsupported(seg: Segment, spans: list[Span], cfg: RepairSettings) -> str:
    if cfg.unsupported != "auto":
        return cfg.unsupported
    covered = sum(_letters(s.text) for s in spans)
    return "remove" if covered >= cfg.remove_coverage * max(_letters(seg.text), 1) else "qualify"


def qualify(sentence: str, qualifier: str = DEFAULT_QUALIFIER) -> str:
    return sentence if sentence.startswith(qualifier) else qualifier + sentence


def repair(
    item: DetectionInput,
    detection: DetectionResult,
    settings: RepairSettings | None = None,
    redetect: Redetect | None = None,
) -> MitigationResult:
    """Repair `item.response` from its spans; re-score with `redetect` when given."""
    cfg = settings or RepairSettings()
    text = item.response
    segments = split_sentences(text)
    by_segment: dict[int, list[Span]] = {}
    for span in detection.spans:
        idx = sentence_index_at(segments, span.start, span.end)
        if idx is not None:
            by_segment.setdefault(idx, []).append(span)

    plans: dict[int, str] = {}  # segment index -> "remove" | "qualify" | "replace"
    replacements: dict[int, list[tuple[Span, str]]] = {}
    for idx, spans in by_segment.items():
        unsupported = [s for s in spans if s.label == "unsupported"]
        # A contradiction's evidence value goes in even where the sentence also holds an
        # unsupported span (then qualified or removed as that span decides).
        fixes = [(s, evidence_value(text, s)) for s in spans if s.label != "unsupported"]
        replacements[idx] = [(s, v) for s, v in fixes if v is not None]
        if unsupported:
            plans[idx] = _decide_unsupported(segments[idx], unsupported, cfg)
            continue
        # A contradiction we cannot fix safely is at least flagged: fix what we can, qualify.
        plans[idx] = "replace" if len(replacements[idx]) == len(fixes) else "qualify"

    # Never return an empty answer: keep (qualified) the last sentence that would go.
    removed = [i for i, p in plans.items() if p == "remove"]
    if segments and len(removed) == len(segments):
        plans[max(removed)] = "qualify"

    edits: list[tuple[int, int, str]] = []
    changes: list[Change] = []
    for idx in sorted(plans):
        seg, plan = segments[idx], plans[idx]
        if plan == "remove":
            edits.append((seg.start, seg.end, ""))
            changes.append(
                Change("removed", seg.start, seg.end, seg.text, "", "unsupported", "repair")
            )
        else:
            new = seg.text
            for span, value in sorted(replacements.get(idx, []), key=lambda p: -p[0].start):
                wrong = wrong_value(span)
                assert wrong is not None  # evidence_value found exactly one
                a = span.start - seg.start + wrong.start()
                b = span.start - seg.start + wrong.end()
                new = new[:a] + value + new[b:]
                changes.append(
                    Change(
                        "replaced", span.start + wrong.start(), span.start + wrong.end(),
                        wrong.group(), value, "contradiction: evidence value", "repair",
                    )
                )  # fmt: skip
            if plan == "qualify":
                is_unsupported = any(s.label == "unsupported" for s in by_segment[idx])
                reason = (
                    "unsupported"
                    if is_unsupported
                    else "contradiction without an unambiguous evidence value"
                )
                before = new
                new = qualify(new, cfg.qualifier)
                changes.append(
                    Change("qualified", seg.start, seg.end, before, new, reason, "repair")
                )
            edits.append((seg.start, seg.end, new))

    final = replace_segments(text, edits) if edits else text
    final_result = detection
    scored = redetect is not None or final == text  # else the repaired text is unscored
    if redetect is not None and final != text:
        final_result = unscored(redetect, cfg.qualifier)(replace(item, response=final))
    iterations = [Iteration(0, text, detection.score, list(detection.spans), note="original")]
    if final != text:
        iterations.append(
            Iteration(1, final, final_result.score, list(final_result.spans), note="repair")
        )
    return MitigationResult(
        mode="repair",
        original_response=text,
        final_response=final,
        final_score=final_result.score if scored else None,
        converged=not plans or (scored and final_result.detected is False),
        stop_reason="repaired" if changes else "nothing_to_repair",
        iterations=iterations,
        changes=sorted(changes, key=lambda c: c.start),
        final_spans=list(final_result.spans) if scored else [],
    )
