"""Opposite words about the same thing (`scoring/antonyms.py`) and changes told in the
wrong direction (`scoring/directions.py`).

Each wrong answer is paired with a faithful one saying the same in other words, through
the check and through the pipeline.
"""

import pytest

from engine import DetectionConfig, DetectionInput, LexicalDetector, verify
from engine.scoring.antonyms import about_the_same, opposite_in
from engine.scoring.directions import direction_findings
from engine.scoring.negations import sentence_findings
from engine.text.words import stem

CFO = (
    "Net sales for the quarter were $2.8 billion, up 4% year on year. Gross margin "
    "contracted by 120 basis points to 41.3%, mainly due to higher freight costs."
)
TRIBUNAL = (
    "The tribunal found that the company failed to follow its own disciplinary procedure. "
    "However, the tribunal rejected his separate claim of race discrimination, finding no "
    "evidence to support it."
)
QUARTERS = (
    "| Quarter | Revenue ($M) |\n|---|---|\n| Q1 | 4.2 |\n| Q2 | 4.8 |\n| Q3 | 5.5 |\n| Q4 | 5.1 |"
)
QUOTE = '{"symbol": "NVTA", "price": 48.27, "change": -1.13, "change_percent": -2.29}'


def _antonyms(context: str, answer: str) -> list[str]:
    return [
        answer[f.start : f.end]
        for f in sentence_findings([context], answer)
        if f.kind == "antonym" and f.verdict == "conflict"
    ]


@pytest.mark.parametrize(
    ("context", "faithful", "wrong", "word"),
    [
        (
            CFO,
            "Gross margin narrowed by 120 basis points to 41.3%, mostly on higher freight costs.",
            "Gross margin expanded by 120 basis points to 41.3%, mostly on higher freight costs.",
            "expanded",
        ),
        (
            TRIBUNAL,
            "The tribunal dismissed his separate claim of race discrimination for lack of "
            "evidence.",
            "The tribunal also upheld his separate claim of race discrimination.",
            "upheld",
        ),
    ],
)
def test_an_opposite_word_about_the_same_thing_is_a_contradiction(context, faithful, wrong, word):
    assert _antonyms(context, faithful) == []
    assert _antonyms(context, wrong) == [word]


def test_opposites_about_different_things_or_with_both_sides_settle_nothing():
    # Both directions in the clause: nothing is said about either.
    assert (
        opposite_in("rose", {stem(w) for w in ["sales", "rose", "while", "costs", "fell"]}) is None
    )
    assert opposite_in("expanded", {"contract", "margin"}) == "contract"
    # The opposite word is about another thing ("lower component costs" is no margin).
    context = "Gross margin was 61.4%, reflecting lower component costs and a better mix."
    answer = "Gross margin widened to 61.4% on cheaper components and a better mix."
    assert not about_the_same(answer, answer.index("widened"), answer.index("widened") + 7,
                              context, "lower")  # fmt: skip
    assert _antonyms(context, answer) == []


def _directions(context: str, answer: str) -> list[str]:
    return [answer[f.start : f.end] for f in direction_findings([context], answer)]


@pytest.mark.parametrize(
    ("context", "faithful", "wrong", "word"),
    [
        (
            QUARTERS,
            "Revenue went from $4.2M in Q1 to $4.8M in Q2 and $5.5M in Q3, then fell to $5.1M.",
            "Revenue went from $4.2M in Q1 to $4.8M in Q2 and $5.5M in Q3, then increased to "
            "$5.1M.",
            "increased",
        ),
        (
            QUARTERS,
            "Revenue rose from $4.2M in Q1 to $5.5M in Q3.",
            "Revenue dropped from $4.2M in Q1 to $5.5M in Q3.",
            "dropped",
        ),
        (
            QUOTE,
            "NVTA last traded at $48.27, a loss of $1.13 (2.29%) on the day.",
            "NVTA last traded at $48.27, a gain of $1.13 (2.29%) on the day.",
            "gain",
        ),
    ],
)
def test_a_change_told_in_the_wrong_direction_is_a_contradiction(context, faithful, wrong, word):
    assert _directions(context, faithful) == []
    assert _directions(context, wrong) == [word]


@pytest.mark.parametrize(
    "answer",
    [
        "Your outgoings added up to CHF 2,626.40: rent of CHF 2,350 and the CHF 190 renewal.",
        "The plan costs $720,000 and adds a 50-cent fare increase to $2.50 in January.",
        "Weekly pay is up to €2,880 after the €48,000 salary review.",
        "The control group saw a 4.3-point fall to 14.6.",
        "The Waves move to 11–3 and the Comets slip to 6–8.",
    ],
)
def test_bounds_sums_records_and_other_series_are_no_change(answer):
    context = '{"amount": -190.0, "balance": 2480.15}'
    assert _directions(context, answer) == []


def test_a_wrong_direction_detects_the_answer_through_the_pipeline():
    config = DetectionConfig(threshold=0.5)
    detector = LexicalDetector()
    wrong = DetectionInput.build(
        [QUOTE], "NVTA last traded at $48.27, a gain of $1.13 on the day.", "How is NVTA doing?"
    )
    faithful = DetectionInput.build(
        [QUOTE], "NVTA last traded at $48.27, a loss of $1.13 on the day.", "How is NVTA doing?"
    )
    bad = verify(wrong, config, detector)
    assert bad.detected
    assert any(s.label == "contradiction" and s.text == "gain" for s in bad.spans)
    good = verify(faithful, config, detector)
    assert not any(s.label == "contradiction" for s in good.spans)
