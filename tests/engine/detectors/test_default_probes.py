"""The probes customers sent, through the pipeline with the shipped default detector and
the default policy: what word overlap got wrong must now come out right."""

from __future__ import annotations

import json

import pytest

from engine.detectors.registry import load_detector
from engine.pipeline import DetectionConfig, verify
from engine.types import DetectionInput

pytestmark = pytest.mark.slow

SALE = ["Items on sale cannot be returned. Other items can be returned within 30 days."]


@pytest.fixture(scope="module")
def detector():
    return load_detector("embedded")


def run(detector, context, answer, query):
    return verify(DetectionInput.build(context, answer, query), DetectionConfig(), detector)


def test_the_negation_flip_is_detected(detector):
    answer = "Yes, sale items can be returned within 30 days with a receipt."
    result = run(detector, SALE, answer, "Can I return a sale item?")
    assert result.detected
    assert any(s.label == "contradiction" and s.text == "can" for s in result.spans)


def test_the_faithful_paraphrase_passes(detector):
    answer = "Sale items are final and cannot be returned."
    result = run(detector, SALE, answer, "Can I return a sale item?")
    assert result.status == "verified", result.score
    assert not result.detected, result.score


def test_a_time_without_its_leading_zero_passes(detector):
    tool = json.dumps({"flight": "LH 402", "departure": "09:05", "gate": "B12"})
    result = run(detector, [tool], "Flight LH 402 departs at 9:05 from gate B12.", "When?")
    assert not any("9:05" in s.text for s in result.spans)
    assert not result.detected, result.score


def test_330_m_against_500_m_is_a_contradiction(detector):
    ctx = ["The Eiffel Tower is in Paris. It is 330 m tall."]
    result = run(detector, ctx, "The Eiffel Tower is 500 m tall.", "How tall is it?")
    assert result.detected
    [span] = [s for s in result.spans if "500" in s.text]
    assert span.label == "contradiction"
    assert "330 m" in span.evidence.text


def test_an_entity_swap_is_caught(detector):
    ctx = ["Maria Lopez has been the chief executive of Acme since 2019."]
    swapped = run(detector, ctx, "John Smith has been Acme's chief executive since 2019.", "Who?")
    faithful = run(detector, ctx, "Since 2019, Acme has been led by Maria Lopez.", "Who?")
    assert swapped.detected
    assert any("Smith" in s.text for s in swapped.spans)
    assert swapped.score > faithful.score


def test_a_spanish_factual_question_is_not_skipped(detector):
    ctx = ["La capital de Australia es Canberra."]
    result = run(
        detector, ctx, "La capital de Australia es Canberra.", "¿Cuál es la capital de Australia?"
    )
    assert result.status != "skipped"
    assert result.query_type == "factual_qa"
