"""A yes-or-no field of a tool result told the other way round.

`{"refundable": false}` against "the ticket is refundable if your plans change": a JSON
object has no sentence for the negation check to align with, so here the key is the
sentence. An answer clause that names every word of a boolean field's key ("refundable",
"pets allowed" for `pets_allowed`) and affirms it where the field is `false`, or negates
it where the field is `true`, is a `negation` conflict with the field as evidence.

A clause that names the key's words only inside a question, a condition or a hedge
("if it is refundable", "check whether") states nothing and is left alone, as is a key
of one short word that is not an adjective or participle of state ("paid", "open" are
kept; "status" holds no boolean).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..text.sentences import clause_spans
from ..text.words import stem
from .findings import Finding

_BOOLEAN = re.compile(r'"(?P<key>[A-Za-z][\w ]{2,40})"\s*:\s*(?P<value>true|false)\b')
#: Words that negate what the clause says of the key.
_NEGATED = re.compile(
    r"\b(?:not|no|never|cannot|can't|won't|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|"
    r"hasn't|haven't|without|non|nor|neither|none|off|disabled|unavailable|excluded)\b|n't\b|"
    r"\bnon-|\bno\s+longer\b",
    re.IGNORECASE,
)
#: Clauses that state nothing: a condition, a question, a hedge.
_UNSTATED = re.compile(
    r"^\s*(?:if|whether|unless|when|once|in case)\b|\?\s*$|\b(?:check|ask|whether|might|may)\b",
    re.IGNORECASE,
)
#: Leading words of a key that say nothing of its meaning ("is_refundable", "has_wifi").
_FILLER = {"is", "has", "can", "was", "are", "allow", "enabl"}
#: How far before or after the key's words a negation counts (about five words).
NEGATION_REACH = 30


def _words(key: str) -> list[str]:
    words = [stem(w.lower()) for w in re.split(r"[_\s]+|(?<=[a-z])(?=[A-Z])", key) if w]
    kept = [w for w in words if w not in _FILLER and len(w) > 2]
    return kept or [w for w in words if len(w) > 2]


def boolean_findings(
    context: Sequence[str], answer: str, found: Sequence[Finding] = ()
) -> list[Finding]:
    """A `negation` conflict for each boolean field the answer states the other way
    round (see the module doc); spans already judged (`found`) are left alone."""
    fields = [
        (i, m.start("value"), m.end("value"), m["key"], m["value"] == "true")
        for i, passage in enumerate(context)
        for m in _BOOLEAN.finditer(passage)
    ]
    out: list[Finding] = []
    for s, e in clause_spans(answer) if fields else []:
        clause = answer[s:e]
        if _UNSTATED.search(clause):
            continue
        stems = [(stem(m.group().lower()), m) for m in re.finditer(r"[A-Za-z]+", clause)]
        for i, vs, ve, key, value in fields:
            words = _words(key)
            hits = [m for w in words for st, m in stems if st in (w, "un" + w, "non" + w)]
            if not words or len({stem(m.group().lower()) for m in hits}) < len(set(words)):
                continue
            first = min(h.start() for h in hits)
            start, end = s + first, s + max(h.end() for h in hits)
            if any(f.start < end and start < f.end for f in found):
                continue
            # the negation that counts stands near the key's words ("is not refundable",
            # "breakfast isn't included", "eco mode is off") or is their prefix ("unpaid")
            last = max(h.end() for h in hits)
            near = clause[max(0, first - NEGATION_REACH) : last + NEGATION_REACH]
            prefixed = any(m.group().lower().startswith(("un", "non")) for m in hits)
            negated = prefixed or _NEGATED.search(near) is not None
            if negated == value:
                said = "negates" if negated else "affirms"
                reason = f"the answer {said} '{key}', which the tool result gives as {str(value).lower()}"
                out.append(Finding(start, end, "negation", "conflict", (i, vs, ve), reason))
            break
    return out
