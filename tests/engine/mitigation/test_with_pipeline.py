"""The modes bound to the real detection pipeline (lexical detector: no model, deterministic)."""

from __future__ import annotations

import json

import pytest

from engine import DetectionConfig, DetectionInput, LexicalDetector, cross_check, redetector
from engine.mitigation.refine import refine
from engine.mitigation.repair import repair
from tests.fixtures.fake_llm import Reply

CONTEXT = ["The Eiffel Tower was completed in 1889 in Paris for the World Fair."]
WRONG = "The Eiffel Tower was completed in 1950 in Lyon."
RIGHT = "The Eiffel Tower was completed in 1889 in Paris."


@pytest.fixture(scope="module")
def detect():
    config = DetectionConfig(classify_queries=False, explain_embeddings=False)
    return redetector(config, LexicalDetector())


def test_repair_fixes_the_year_and_qualifies_the_place_the_context_never_names(detect):
    item = DetectionInput.build(CONTEXT, WRONG, "When and where?")
    initial = detect(item)
    assert initial.detected
    # the year is contradicted; Lyon is a name the context never uses: unsupported (issue 20)
    assert {s.text: s.label for s in initial.spans} == {
        "1950": "contradiction",
        "Lyon": "unsupported",
    }

    result = repair(item, initial, redetect=detect)

    # the contradicted year takes the evidence's value; the unconfirmed place is qualified
    assert result.final_response == (
        "(Not confirmed by the provided context) The Eiffel Tower was completed in 1889 in Lyon."
    )
    assert ("1950", "1889") in [(c.before, c.after) for c in result.changes]
    assert not result.converged  # Lyon is still not in the context


def test_repair_fixes_a_year_and_a_place_named_in_the_context(detect):
    context = ["The Eiffel Tower was completed in 1889 in Paris. Lyon hosted a fair in 1894."]
    item = DetectionInput.build(
        context, "The Eiffel Tower was completed in 1950 in Paris.", "When?"
    )
    result = repair(item, detect(item), redetect=detect)
    assert result.final_response == RIGHT
    assert [(c.before, c.after) for c in result.changes] == [("1950", "1889")]
    assert result.converged
    assert result.final_score is not None
    assert result.final_score < 0.5


def test_refine_converges_with_the_real_detector(llm, client, model, detect):
    llm.script(RIGHT)
    item = DetectionInput.build(CONTEXT, WRONG, "When and where?")

    result = refine(item, detect(item), detect, client, model())

    assert result.converged
    assert result.final_response == RIGHT
    prompt = llm.requests[0]["messages"][-1]["content"]
    assert '"1950" - contradiction' in prompt
    assert "the context says" in prompt


def test_premium_with_the_real_detector(llm, client, model, detect):
    verdict = {"claims": [{"id": 1, "action": "replace", "replacement": RIGHT}]}
    llm.responder = lambda body: Reply(
        content=json.dumps(verdict) if body["model"] == "judge" else RIGHT
    )
    item = DetectionInput.build(CONTEXT, WRONG, "When and where?")

    result = cross_check(item, detect(item), detect, client, [model("verifier-a")], model("judge"))

    assert result.final_response == RIGHT
    assert result.converged
    assert [c.role for c in result.calls] == ["verify", "judge"]
