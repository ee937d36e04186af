"""The answer's own arithmetic (`scoring/own_arithmetic.py`): a result that the figures of
its own sentence miss by a little is a contradiction; a right one, or one whose operands
the sentence does not all state, is left alone."""

import pytest

from engine import DetectionConfig, DetectionInput, LexicalDetector, verify
from engine.scoring.own_arithmetic import arithmetic_findings


def _flagged(answer: str) -> list[str]:
    return [answer[f.start : f.end] for f in arithmetic_findings(answer)]


@pytest.mark.parametrize(
    ("faithful", "wrong", "result", "gives"),
    [
        (
            "Two adult tickets come to $36 and three child tickets to $33, so the total is $69.",
            "Two adult tickets come to $36 and three child tickets to $33, so the total is $79.",
            "$79",
            "69",
        ),
        (
            "TGV 6175 departs at 09:04 and reaches Marseille at 10:46, a journey time of "
            "1 hour 42 minutes.",
            "TGV 6175 departs at 09:04 and reaches Marseille at 10:46, a journey time of "
            "1 hour 52 minutes.",
            "1 hour 52 minutes",
            "1 h 42 min",
        ),
        (
            "Check-in shuts 45 minutes ahead of the 07:45 sailing, so you need to be through by 07:00.",
            "Check-in shuts 45 minutes ahead of the 07:45 sailing, so you need to be through by 07:15.",
            "07:15",
            "07:00",
        ),
        (
            "Your PAC is valid for 30 days from 3 June, so it stays valid until 3 July.",
            "Your PAC is valid for 30 days from 3 June, so it stays valid until 3 August.",
            "3 August",
            "3 July",
        ),
        (
            "The hire car for nine days at £42 a day comes to £378.",
            "The hire car for nine days at £42 a day comes to £387.",
            "£387",
            "378",
        ),
        (
            "Team Beta closed 57 tickets, 15 more than Team Alpha's 42.",
            "Team Beta closed 57 tickets, 13 more than Team Alpha's 42.",
            "13",
            "15",
        ),
    ],
)
def test_a_result_its_own_figures_miss_is_flagged_and_the_right_one_is_not(
    faithful, wrong, result, gives
):
    assert _flagged(faithful) == []
    (finding,) = arithmetic_findings(wrong)
    assert wrong[finding.start : finding.end].rstrip(".") == result
    assert finding.verdict == "conflict"
    assert f"give {gives}," in finding.reason


def test_operands_the_sentence_does_not_state_are_left_alone():
    # twelve payments against the annual fee: both differences are in the sentence
    assert (
        _flagged(
            "Twelve payments of £38 come to £456 a year, which is £36 more than the £420 annual fee."
        )
        == []
    )
    # a saving worked out from a price the sentence never states: nothing comes close
    assert _flagged("The plan costs $15 a seat, so the team's total is $2,160 a year.") == []


def test_business_days_are_not_counted():
    assert (
        _flagged(
            "Refunds take 10 business days, so with your return received on 3 June you should "
            "see the money by 17 June."
        )
        == []
    )


def test_through_the_pipeline_the_wrong_total_is_detected_with_its_reason():
    context = ["Adult tickets cost $18 and child tickets cost $11; so the total for two adult "
               "tickets and three child tickets comes to the family rate."]  # fmt: skip
    config = DetectionConfig(threshold=0.5)
    right = verify(
        DetectionInput.build(
            context,
            "Two adult tickets come to $36 and three child tickets to $33, so the total is $69.",
            None,
        ),
        config,
        LexicalDetector(),
    )
    wrong = verify(
        DetectionInput.build(
            context,
            "Two adult tickets come to $36 and three child tickets to $33, so the total is $79.",
            None,
        ),
        config,
        LexicalDetector(),
    )
    assert not right.detected
    assert wrong.detected
    assert any("79" in s.text and "add up" in s.reason for s in wrong.spans)
