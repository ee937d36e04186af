"""A contradiction on an amount, where the context states several, needs a misquote of
the aligned figure (engine/scoring/misquotes.py); an unrelated figure is unconfirmed."""

from __future__ import annotations

import pytest

from engine.scoring import typed_checks
from engine.scoring.misquotes import misquote, misquoted
from engine.scoring.typed_values import values


@pytest.mark.parametrize(
    ("said", "stated"), [(48, 38), (4.59, 4.69), (1395, 1359), (12, 120), (1250, 1250.0)]
)
def test_a_figure_one_digit_away_is_a_misquote(said, stated):
    assert misquote(said, stated)


@pytest.mark.parametrize(("said", "stated"), [(480, 650), (58, 75), (2367.6, 1250), (7000, 84000)])
def test_a_figure_further_away_is_not(said, stated):
    assert not misquote(said, stated)


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [("10 days", "two weeks", True), ("$700k", "$900,000", True), ("£480", "£650", False)],
)
def test_amounts_are_compared_in_the_answers_unit_and_scale(answer, context, expected):
    (a,) = [v for v in values(answer) if v.kind == "quantity"]
    (b,) = [v for v in values(context) if v.kind == "quantity"]
    assert misquoted(a, b) is expected


def _finding(context: str, answer: str, figure: str):
    start = answer.index(figure)
    return next(f for f in typed_checks.check([context], answer) if f.start == start)


ROOMS = (
    "The Harbour View room costs €380 per night and the Garden room €290 per night, "
    "breakfast included."
)


def test_a_misquoted_figure_is_contradicted_and_an_unrelated_one_unconfirmed():
    assert _finding(ROOMS, "The Harbour View room costs €360 per night.", "€360").verdict == (
        "conflict"
    )
    unrelated = _finding(ROOMS, "The Harbour View room costs €415 per night.", "€415")
    assert unrelated.verdict == "absent"
    assert typed_checks.UNRELATED in unrelated.reason


def test_a_lone_amount_is_contradicted_by_any_other_figure():
    assert _finding("The tower is 330 m tall.", "It is 500 m tall.", "500 m").verdict == "conflict"


def test_an_unrelated_figure_still_flags_the_answer_without_calling_it_a_contradiction():
    from engine import DetectionInput, PolicyDocument, detection_config, load_detector, verify_batch

    policy = PolicyDocument()
    config = detection_config(policy, policy.threshold)
    item = DetectionInput.build([ROOMS], "The Harbour View room costs €415 per night.", None)
    (result,) = verify_batch([item], config, load_detector("embedded"))
    assert result.detected
    assert result.score >= typed_checks.UNRELATED_FLOOR
    assert not any(s.label == "contradiction" for s in result.spans)
