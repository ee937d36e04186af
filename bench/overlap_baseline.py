"""The trivial lexical-overlap baseline every detector must beat.

A content word of the answer (not a stop word) that does not occur in the
context is "unsupported"; the response score is the fraction of content
words that are unsupported, and spans are runs of unsupported words. No
model, no tuning: it is here to show what plain string matching gets.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine import DetectionInput

_WORD = re.compile(r"[A-Za-z0-9]+(?:['.,][A-Za-z0-9]+)*")
STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    out over own same she should so some such than that the their theirs them then there these
    they this those through to too under until up very was we were what when where which while
    who whom why will with would you your yours yes yeah well also like know think really lot
    one get got s t don""".split()
)


def unsupported_spans(item: DetectionInput) -> tuple[float, list[tuple[int, int]]]:
    """(fraction of unsupported content words, character spans of unsupported runs)."""
    context_words = {w.lower() for p in item.context for w in _WORD.findall(p)}
    spans: list[tuple[int, int]] = []
    content = unsupported = 0
    for m in _WORD.finditer(item.response):
        word = m.group().lower()
        if word in STOP_WORDS:
            continue
        content += 1
        if word in context_words:
            continue
        unsupported += 1
        # Join with the previous run when only stop words/spaces lie between.
        if spans and not any(
            w.lower() not in STOP_WORDS
            for w in _WORD.findall(item.response[spans[-1][1] : m.start()])
        ):
            spans[-1] = (spans[-1][0], m.end())
        else:
            spans.append((m.start(), m.end()))
    return (unsupported / content if content else 0.0), spans


def score_overlap(items: Sequence[DetectionInput]) -> list[tuple[float, list[tuple[int, int]]]]:
    return [unsupported_spans(item) for item in items]
