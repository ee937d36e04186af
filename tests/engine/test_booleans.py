"""A yes-or-no field of a tool result told the other way round."""

from __future__ import annotations

import json

import pytest

from engine.scoring.booleans import boolean_findings
from engine.scoring.typed_checks import check

BOOKING = json.dumps(
    {"ticket_type": "Advance Single", "refundable": False, "breakfast_included": False,
     "retries_enabled": True, "eco_mode": False, "pets_allowed": True}
)  # fmt: skip


def flagged(answer: str) -> list[str]:
    return [
        answer[f.start : f.end]
        for f in check([BOOKING], answer)
        if f.kind == "negation" and f.verdict == "conflict"
    ]


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("The ticket is refundable if your plans change.", "refundable"),
        ("Breakfast is included in the rate.", "Breakfast is included"),
        ("The job does not have automatic retries enabled.", "retries"),
        ("Eco mode is on, so the heating runs cooler.", "Eco mode"),
        ("Pets are not allowed at this hotel.", "Pets"),
    ],
)
def test_a_boolean_field_told_the_other_way_round_conflicts(answer, said):
    assert said in flagged(answer)
    finding = boolean_findings([BOOKING], answer)[0]
    assert finding.evidence is not None
    i, s, e = finding.evidence
    assert BOOKING[s:e] in ("true", "false")


@pytest.mark.parametrize(
    "answer",
    [
        "The ticket is non-refundable.",
        "It isn't refundable, and breakfast isn't included.",
        "Automatic retries are enabled for this job.",
        "Eco mode is off.",
        "Pets are allowed.",
        # a condition or a question states nothing
        "If the ticket is refundable, you could cancel it.",
        "Check whether breakfast is included before you book.",
    ],
)
def test_the_same_field_told_as_the_tool_gives_it_is_no_conflict(answer):
    assert flagged(answer) == []


def test_no_boolean_field_no_finding():
    assert boolean_findings(['{"status": "failed", "owner": "hwong"}'], "The run failed.") == []
