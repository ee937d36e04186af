"""Rules that turn evidence into a verdict that moves with it (Detection v3).

Three guarantees, each a property test in `tests/engine/test_verdict_monotone.py`:

* **Contradictions are precise.** A span is a `contradiction` only when a typed check
  (`typed_checks`: a value, date, time, negation, antonym or table-row conflict that
  could not be worked out from the context or the question) confirms it. The
  explainer's own rules (a different number in the best-matching sentence, a name the
  sentence does not use) cannot tell a worked-out value or a paraphrase from an
  error: on the development sets they marked 38 faithful answers against 19 wrong
  ones. What they find stays a span, as `unsupported`, at a lower weight.
* **A contradiction decides.** The answer's score is at least the confidence of its
  strongest contradiction, so a contradiction at or above the threshold always makes
  the answer detected, however the response head scored the rest.
* **Function words are noise, not evidence.** A token on a function word ("and",
  "is", "of") keeps its probability only inside a flagged phrase (both neighbours
  flagged); alone it is damped, at the token level, so no answer's score is lowered
  to fight it.

`relevant_passages` keeps extra evidence from washing out a contradiction: passages
that share no content word or number with the answer (or the question) are not shown
to the detector at all, so adding them changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..text.words import content_keys, is_content, tokenize
from ..types import Span, TokenProb
from .findings import Finding

#: An unconfirmed conflict is reported as unsupported at most this sure: below a
#: contradiction, at the default threshold's edge rather than over it.
UNCONFIRMED_CAP = 0.6
#: How much of its probability a lone function-word token keeps.
FUNCTION_WORD_DAMPING = 0.5


def precise_labels(spans: Sequence[Span], findings: Sequence[Finding]) -> list[Span]:
    """`spans` with every `contradiction` that no typed conflict confirms relabelled
    `unsupported` (capped at `UNCONFIRMED_CAP`), its reason kept as the explanation."""
    conflicts = [f for f in findings if f.verdict == "conflict"]
    out = []
    for s in spans:
        confirmed = any(f.start < s.end and s.start < f.end for f in conflicts)
        if s.label == "contradiction" and not confirmed:
            reason = f"not confirmed by the context ({s.reason})" if s.reason else s.reason
            s = replace(
                s, label="unsupported", confidence=min(s.confidence, UNCONFIRMED_CAP), reason=reason
            )
        out.append(s)
    return out


def contradiction_floor(spans: Sequence[Span]) -> float:
    """The strongest contradiction's confidence; 0.0 when there is none."""
    return max((s.confidence for s in spans if s.label == "contradiction"), default=0.0)


def damp_function_words(
    text: str, tokens: Sequence[TokenProb], token_threshold: float = 0.5
) -> list[TokenProb]:
    """Tokens whose text holds no content word, damped unless both neighbours are
    above `token_threshold` (then the token joins a flagged phrase)."""
    ordered = sorted(tokens, key=lambda t: t.start)
    out = []
    for k, t in enumerate(ordered):
        words = tokenize(text[t.start : t.end])
        if t.prob > token_threshold and words and not any(is_content(w) for w in words):
            before = ordered[k - 1].prob if k > 0 else 0.0
            after = ordered[k + 1].prob if k + 1 < len(ordered) else 0.0
            if not (before > token_threshold and after > token_threshold):
                t = TokenProb(t.start, t.end, t.prob * FUNCTION_WORD_DAMPING)
        out.append(t)
    return out


def relevant_passages(context: Sequence[str], response: str, query: str | None) -> list[int]:
    """Indices of the passages that share a content word or number with the answer or
    the question; every index when none does (then nothing can be told apart)."""
    wanted = content_keys(response) | content_keys(query or "")
    keep = [i for i, p in enumerate(context) if content_keys(p) & wanted]
    return keep or list(range(len(context)))
