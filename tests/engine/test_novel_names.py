"""A name the detector marks and the context never uses (`scoring/novel_names.py`).

Each wrong answer is paired with a faithful one that adds a name a person would add
too (a state after its city, the airport a code stands for, a title's abbreviation, a
weekday), through the check and through the pipeline.
"""

import pytest

from engine import DetectionConfig, DetectionInput, LexicalDetector, Span, verify
from engine.scoring import roles
from engine.scoring.novel_names import NOVEL_NAME_FLOOR, novel_names

pytestmark = pytest.mark.skipif(not roles.available(), reason="spaCy model not installed")

SHIPMENT = (
    '{"order": "A-1042", "status": "shipped", "carrier": "FedEx", '
    '"origin": "Memphis, TN", "eta": "2025-05-20"}'
)
FLIGHT = '{"flight": "KL1008", "from": "LHR", "to": "AMS", "depart": "2024-07-03T06:50"}'
RELEASE = (
    "Brightwave Energy has completed the Kestrel Bay offshore wind farm, 22 km off the "
    "Devon coast. Chief executive Maria Delgado said it would power 300,000 homes. The "
    "landlord must also provide an Energy Performance Certificate."
)


def _all_marked(answer: str) -> list[Span]:
    """One `unsupported` span over the whole answer: every word is marked."""
    return [Span(0, len(answer), answer, 0.6)]


def _names(context: str, answer: str, spans: list[Span] | None = None) -> list[str]:
    found = novel_names([context], answer, None, _all_marked(answer) if spans is None else spans)
    return [answer[a:b] for a, b in found]


@pytest.mark.parametrize(
    ("context", "faithful", "wrong", "name"),
    [
        (
            SHIPMENT,
            "Order A-1042 left Memphis, Tennessee with FedEx and should arrive on May 20.",
            "Order A-1042 left Memphis, Tennessee with UPS and should arrive on May 20.",
            "UPS",
        ),
        (
            FLIGHT,
            "You fly KL1008 from Heathrow at 6:50 am on a Wednesday, landing in Amsterdam (AMS).",
            "You fly KL1008 from Heathrow at 6:50 am on a Wednesday, landing in Rotterdam.",
            "Rotterdam",
        ),
        (
            RELEASE,
            "The Kestrel Bay wind farm sits 22 km off the Devon coast, CEO Maria Delgado said, "
            "and the flat needs an EPC.",
            "The Kestrel Bay wind farm sits 22 km off the Cornwall coast, CEO Maria Delgado "
            "said, and the flat needs an EPC.",
            "Cornwall",
        ),
    ],
)
def test_a_marked_name_of_the_answers_own_is_found_and_what_a_person_adds_is_not(
    context, faithful, wrong, name
):
    assert _names(context, faithful) == []
    assert _names(context, wrong) == [name]


def test_an_unmarked_name_is_left_to_the_model():
    answer = "Order A-1042 shipped with UPS."
    assert _names(SHIPMENT, answer) == ["UPS"]
    assert _names(SHIPMENT, answer, spans=[]) == []
    # a contradiction span is the typed checks' business, not an unsupported mark
    assert _names(SHIPMENT, answer, [Span(0, len(answer), answer, 0.9, "contradiction")]) == []


def test_the_users_own_names_count_as_known():
    answer = "Order A-1042 is going to your Boston office."
    assert novel_names([SHIPMENT], answer, None, _all_marked(answer))
    assert not novel_names(
        [SHIPMENT], answer, "Will it reach our Boston office?", _all_marked(answer)
    )


def test_through_the_pipeline_the_wrong_carrier_is_detected_and_explained():
    detector = LexicalDetector()
    config = DetectionConfig(threshold=0.5)
    right = verify(
        DetectionInput.build([SHIPMENT], "Order A-1042 has shipped with FedEx.", "Where is it?"),
        config,
        detector,
    )
    wrong = verify(
        DetectionInput.build([SHIPMENT], "Order A-1042 has shipped with UPS.", "Where is it?"),
        config,
        detector,
    )
    assert not right.detected
    assert wrong.detected
    assert wrong.score >= NOVEL_NAME_FLOOR
    (span,) = [s for s in wrong.spans if "UPS" in s.text]
    assert span.label == "unsupported"
    assert "UPS" in span.reason
    # the switch that turns the typed checks off turns this one off too
    off = verify(
        DetectionInput.build([SHIPMENT], "Order A-1042 has shipped with UPS.", "Where is it?"),
        DetectionConfig(threshold=0.5, typed_checks=False),
        detector,
    )
    assert not any("name not in the context" in s.reason for s in off.spans)


def test_the_header_row_of_a_table_the_answer_writes_is_no_claim():
    context = "Maintenance runs on Thursday from 22:00 for two hours."
    answer = "| Window | Length |\n|---|---|\n| Thursday 22:00 | two hours |"
    assert _names(context, answer) == []
    # a name in a row of the table is still read
    wrong = "| Window | Length |\n|---|---|\n| Thursday 22:00 in Leipzig | two hours |"
    assert _names(context, wrong) == ["Leipzig"]
