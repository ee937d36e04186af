"""Closed-class words compared only with a real rival (engine/scoring/negations.py)."""

from __future__ import annotations

import pytest

from engine.scoring import typed_checks


def _classes(context, answer):
    return [
        answer[f.start : f.end]
        for f in typed_checks.check(context, answer)
        if f.kind == "class" and f.verdict == "conflict"
    ]


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (  # a word of a hyphenated compound is no member of its class
            "In a randomised, double-blind trial, 412 adults received either the drug or a "
            "placebo; pain scores fell by 38% with the drug.",
            "Pain scores fell by 38%, and about half of the 412 adults received the drug.",
        ),
        (  # "half pay" restates "50% of pay"
            "Birth parents receive 26 weeks of leave at full pay, followed by up to 13 weeks "
            "at 50% of pay.",
            "You get 26 weeks on full pay and then up to 13 weeks on half pay.",
        ),
        (  # wind does not rule out sunshine
            "Forecast: Tuesday will be hot and sunny with a high of 31°C and gusts of 40 km/h.",
            "Tuesday looks hot and windy, with a high of 31°C.",
        ),
    ],
)
def test_a_word_that_no_rival_excludes_is_not_contradicted(context, answer):
    assert _classes([context], answer) == []


def test_another_member_of_the_class_is_still_contradicted():
    context = ["The status light blinks orange while the battery charges."]
    answer = "While the battery charges, the status light blinks green."
    assert _classes(context, answer) == ["green"]
