"""The qualifier the service adds to an answer is never scored as a span of it."""

from __future__ import annotations

import re

from engine.mitigation.added_text import unscored
from engine.mitigation.repair import DEFAULT_QUALIFIER, RepairSettings, repair
from engine.types import DetectionInput, DetectionResult, Span

ANSWER = "The tower was completed in 1950. It is the tallest in the world."


def _suspicious(item: DetectionInput) -> DetectionResult:
    """A detector that flags every year after 1900 and every 'Not confirmed' it reads
    (as a real detector may: the words are in no context)."""
    text = item.response
    spans = [
        Span(m.start(), m.end(), m.group(), 0.9, "unsupported")
        for m in re.finditer(r"\b19[0-9]{2}\b|Not confirmed[^)]*", text)
    ]
    return DetectionResult("verified", 0.9 if spans else 0.1, bool(spans), "high", spans=spans)


def test_spans_of_the_added_text_are_dropped_and_the_others_map_back():
    answer = DEFAULT_QUALIFIER + "Built in 1950. " + DEFAULT_QUALIFIER + "Also 1960."
    item = DetectionInput.build(["Built in 1889."], answer)

    result = unscored(_suspicious, DEFAULT_QUALIFIER)(item)

    assert [s.text for s in result.spans] == ["1950", "1960"]
    for span in result.spans:
        assert answer[span.start : span.end] == span.text
    assert _suspicious(item).spans[0].text.startswith("Not confirmed")  # unwrapped, it would


def test_a_repaired_answer_is_scored_without_its_qualifier():
    # given a sentence the repair can only qualify
    item = DetectionInput.build(["The tower was completed in 1889."], ANSWER)
    start = ANSWER.index("It is")
    det = DetectionResult(
        "verified",
        0.9,
        True,
        "high",
        spans=[Span(start, len(ANSWER) - 1, ANSWER[start:-1], 0.9, "unsupported")],
    )
    # when it is repaired and re-detected
    result = repair(item, det, RepairSettings(unsupported="qualify"), redetect=_suspicious)
    # then the qualifier is in the answer but in none of its spans
    assert DEFAULT_QUALIFIER.strip() in result.final_response
    at = result.final_response.index(DEFAULT_QUALIFIER)
    assert result.final_spans, "the real claim (1950) is still flagged"
    for span in result.final_spans:
        assert span.end <= at or span.start >= at + len(DEFAULT_QUALIFIER), span
        assert result.final_response[span.start : span.end] == span.text
