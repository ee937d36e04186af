"""The worker's entry point: mode dispatch, pass-through and graceful fallbacks."""

from __future__ import annotations

import json

import pytest

from engine import Models, mitigate
from engine.policy import PolicyDocument
from engine.types import DetectionInput, DetectionResult
from tests.fixtures.fake_detection import fake_redetect
from tests.fixtures.fake_llm import Reply

CONTEXT = ["The tower was completed in 1889."]
WRONG = "The tower was completed in 1950."
RIGHT = "The tower was completed in 1889."
POLICY = PolicyDocument(threshold=0.5)


def _given(response: str = WRONG):
    item = DetectionInput.build(CONTEXT, response, "When?")
    return item, fake_redetect(item)


def test_a_passing_answer_is_returned_unchanged():
    item, det = _given(RIGHT)

    result = mitigate("standard", item, det, POLICY, fake_redetect)

    assert (result.stop_reason, result.final_response) == ("passed", RIGHT)


def test_an_unverifiable_answer_is_not_touched():
    item, _ = _given()
    det = DetectionResult("unverifiable", None, None, None, reason="no context")

    result = mitigate("premium", item, det, POLICY, fake_redetect)

    assert result.stop_reason == "not_verified"
    assert result.final_response == WRONG


def test_lightweight_uses_the_policy_template():
    item, det = _given()
    policy = PolicyDocument(warning_template="Careful ({score:.2f}): {spans}")

    result = mitigate("lightweight", item, det, policy, fake_redetect)

    assert result.warnings == ['Careful (0.50): "1950" (contradiction, 0.50)']


def test_standard_without_an_llm_repairs_without_one():
    item, det = _given()
    det.spans[0].evidence = None  # the fake gives no evidence: repair can only qualify

    result = mitigate("standard", item, det, POLICY, fake_redetect)

    assert result.mode == "repair"
    assert result.calls == []
    assert "no LLM configured" in result.diagnostics[0]


def test_premium_without_a_judge_falls_back_to_standard(llm, client, model):
    llm.script(RIGHT)
    item, det = _given()

    result = mitigate("premium", item, det, POLICY, fake_redetect, client, Models(primary=model()))

    assert result.mode == "standard"
    assert result.final_response == RIGHT
    assert "fell back to standard" in result.diagnostics[0]


def test_premium_with_models_runs_the_cross_check(llm, client, model):
    verdict = json.dumps({"claims": [{"id": 1, "action": "replace", "replacement": RIGHT}]})
    llm.responder = lambda body: Reply(content=verdict if body["model"] == "judge" else RIGHT)
    item, det = _given()
    models = Models(model(), (model("verifier-a"),), model("judge"))

    result = mitigate("premium", item, det, POLICY, fake_redetect, client, models)

    assert result.mode == "premium"
    assert result.final_response == RIGHT


def test_auto_must_be_resolved_first():
    item, det = _given()

    with pytest.raises(ValueError, match="resolved"):
        mitigate("auto", item, det, POLICY, fake_redetect)
