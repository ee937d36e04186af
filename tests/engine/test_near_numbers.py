"""A bare number one keystroke away from the number of the context clause it restates."""

from __future__ import annotations

import pytest

from engine.scoring.near_numbers import near_number_findings
from engine.scoring.typed_checks import check

FOOD_BANK = "The food bank served an average of 4,100 households per month."
MEALS = (
    "In 2023, Riverside Food Network distributed 1.2 million meals across 46 partner "
    "organisations, up from 950,000 meals the previous year."
)


def conflicts(context: str, answer: str) -> list[str]:
    return [answer[f.start : f.end] for f in check([context], answer) if f.verdict == "conflict"]


@pytest.mark.parametrize(
    ("context", "wrong", "said"),
    [
        (FOOD_BANK, "On average the food bank served 4,400 households each month.", "4,400"),
        (MEALS, "It distributed 1.2 million meals, up from 850,000 the year before.", "850,000"),
        (
            "About 14,200 units were sold through Homefield stores in the first week.",
            "Homefield stores sold about 12,400 units in the first week.",
            "12,400",
        ),
        (
            "Homeline is recalling 48,000 units of its KettlePro 2 kettle.",
            "Homeline is recalling 84,000 KettlePro 2 units.",
            "84,000",
        ),
    ],
)
def test_a_copied_figure_with_one_digit_wrong_or_two_swapped_conflicts(context, wrong, said):
    assert said in conflicts(context, wrong)
    found = near_number_findings([context], wrong, [])
    assert found
    assert found[0].evidence is not None
    i, s, e = found[0].evidence
    assert context[s:e] != said


@pytest.mark.parametrize(
    "answer",
    [
        # the same figure, written another way
        "On average the food bank served 4,100 households each month.",
        "It distributed 1.2 million meals, up from 950 thousand the year before.",
        # a figure worked out from the clause's own numbers (4,100 plus 300 more)
        "It served 4,100 households a month, and 300 more in December, 4,400 in all.",
    ],
)
def test_the_same_or_a_worked_out_figure_is_no_conflict(answer):
    context = FOOD_BANK if "food bank" in answer or "households" in answer else MEALS
    assert conflicts(context, answer) == []


def test_a_number_in_a_clause_the_answer_does_not_restate_is_left_alone():
    # the answer's clause shares no words with the context clause holding 4,100
    assert near_number_findings([FOOD_BANK], "Tickets cost 4,400 yen at the door.", []) == []


def test_small_counts_and_years_are_left_alone():
    context = "The school has 310 pupils and opened in 1998."
    assert near_number_findings([context], "The school has 410 pupils.", []) != []
    assert near_number_findings([context], "The school opened in 1988.", []) == []
    assert near_number_findings(["Classes have 24 pupils."], "Classes have 34 pupils.", []) == []
