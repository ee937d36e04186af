"""A name put among another entity's words (`scoring/name_neighbours.py`).

Each wrong answer is paired with the faithful one that names the right entity, through
the check and through the pipeline.
"""

import pytest

from engine import DetectionConfig, DetectionInput, LexicalDetector, verify
from engine.scoring.name_neighbours import name_neighbour_findings

ROUTING = (
    "Building manager for Harrow Point: Lena Vasquez. Building manager for Cobalt Wharf: "
    "Idris Mensah. Rent and deposit queries: Accounts team, led by Fiona Clegg. Parking "
    "permits are handled by the building manager."
)
BOARD = (
    "Minutes of the Board of Directors, Alpenrose Medtech AG: The Board approved the FY2025 "
    "operating budget of CHF 48.6 million. Director Okafor abstained from the vote."
)
FINAL = (
    "Riverside Rovers beat Harbor City 3-1. Mateo Lind scored twice for Riverside and Jonas "
    "Berg pulled one back. Riverside goalkeeper Ali Demir, who saved a penalty in the first "
    "half, was named man of the match."
)


def _flagged(context: str, answer: str, query: str | None = None) -> list[str]:
    return [answer[f.start : f.end] for f in name_neighbour_findings([context], answer, (), query)]


@pytest.mark.parametrize(
    ("context", "faithful", "wrong", "name"),
    [
        (
            ROUTING,
            "Parking permits go through your building manager, which for Cobalt Wharf is "
            "Idris Mensah.",
            "Parking permits go through your building manager, which for Cobalt Wharf is "
            "Lena Vasquez.",
            "Lena Vasquez",
        ),
        (
            FINAL,
            "Ali Demir, Riverside's goalkeeper, saved a penalty and was named man of the match.",
            "Jonas Berg, Riverside's goalkeeper, saved a penalty and was named man of the match.",
            "Jonas Berg",
        ),
    ],
)
def test_a_name_among_another_entitys_words_is_a_contradiction(context, faithful, wrong, name):
    query = "Who handles parking permits at Cobalt Wharf?" if context == ROUTING else None
    assert _flagged(context, faithful, query) == []
    assert _flagged(context, wrong, query) == [name]


def test_a_name_whose_own_words_fit_as_well_or_whose_rival_is_no_entity_is_left_alone():
    # The company's sentence shares the budget with the answer, but it is no person.
    answer = (
        "The board signed off on an FY2025 operating budget of CHF 48.6M, with Director "
        "Okafor abstaining."
    )
    assert _flagged(BOARD, answer) == []
    # The rival is named in the answer too: a list, not a swap.
    answer = "Lena Vasquez manages Harrow Point and Idris Mensah manages Cobalt Wharf."
    assert _flagged(ROUTING, answer) == []


def test_a_swapped_name_detects_the_answer_through_the_pipeline():
    config = DetectionConfig(threshold=0.5)
    wrong = DetectionInput.build(
        [ROUTING],
        "For Cobalt Wharf the building manager is Lena Vasquez, who handles parking permits.",
        "Who handles parking permits at Cobalt Wharf?",
    )
    result = verify(wrong, config, LexicalDetector())
    assert result.detected
    span = next(s for s in result.spans if s.label == "contradiction")
    assert span.text == "Lena Vasquez"
    assert "Idris Mensah" in (span.evidence.text if span.evidence else "")
