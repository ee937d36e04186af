"""The shipped default detector ("embedded") end to end through the engine, policy defaults."""

from __future__ import annotations

import pytest

from engine.detectors.registry import load_detector
from engine.pipeline import DetectionConfig, verify
from engine.text.messages import inputs_from_messages

pytestmark = pytest.mark.slow

TOOL_RESULT = (
    "Eiffel Tower: wrought-iron lattice tower on the Champ de Mars in Paris. "
    "Construction: 1887-1889, for the 1889 World's Fair. Height: 330 m."
)


def _conversation(answer: str) -> list[dict]:
    return [
        {"role": "user", "content": "When was the Eiffel Tower built and how tall is it?"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "t1"}]},
        {"role": "tool", "tool_call_id": "t1", "content": TOOL_RESULT},
        {"role": "assistant", "content": answer},
    ]


@pytest.fixture(scope="module")
def default_detector():
    detector = load_detector("embedded")  # bf16 on CPUs with bf16 units (test_registry)
    assert detector.name in ("embedded-minilm+lexical", "embedded-minilm-bf16+lexical")
    assert getattr(detector, "head", None) is not None  # the calibrated response head is shipped
    return detector


def test_the_default_flags_the_contradicted_year_and_height_of_a_tool_result(default_detector):
    answer = "The Eiffel Tower was built in 1950 and it is 500 m tall."
    result = verify(
        inputs_from_messages(_conversation(answer)), DetectionConfig(), default_detector
    )
    assert result.status == "verified"
    assert result.detected
    labels = {s.text: s.label for s in result.spans}
    year = next(t for t in labels if "1950" in t)
    height = next(t for t in labels if "500" in t)  # "500 m": the typed check spans the unit
    assert labels[year] == "contradiction"
    assert labels[height] == "contradiction"


def test_the_default_passes_a_faithful_paraphrase_of_the_tool_result(default_detector):
    answer = "It was constructed between 1887 and 1889 for the World's Fair and stands 330 m tall."
    result = verify(
        inputs_from_messages(_conversation(answer)), DetectionConfig(), default_detector
    )
    assert result.status == "verified"
    assert not result.detected, (result.score, [(s.text, s.confidence) for s in result.spans])
    assert result.score < 0.5


def test_the_calibrated_score_ranks_the_swap_above_the_paraphrase(default_detector):
    faithful = "It was constructed between 1887 and 1889 and stands 330 m tall."
    swapped = "It was constructed between 1887 and 1889 and stands 530 m tall."
    config = DetectionConfig()
    a = verify(inputs_from_messages(_conversation(faithful)), config, default_detector)
    b = verify(inputs_from_messages(_conversation(swapped)), config, default_detector)
    assert b.score > a.score
