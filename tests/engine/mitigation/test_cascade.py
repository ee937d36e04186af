"""Budgeted cascade: encoder for clear spans, an LLM judge for the uncertainty band."""

from __future__ import annotations

import json

import pytest

from engine.mitigation.cascade import CascadeSettings, cascade
from engine.types import DetectionInput, DetectionResult, Span
from tests.fixtures.fake_llm import Reply

ANSWER = "Alpha beta gamma delta."


def _detection() -> DetectionResult:
    spans = [
        Span(0, 5, "Alpha", 0.95),  # clear: encoder confirms
        Span(6, 10, "beta", 0.5),  # uncertain
        Span(11, 16, "gamma", 0.6),  # uncertain
        Span(17, 22, "delta", 0.2),  # clear: encoder clears
    ]
    return DetectionResult("verified", 0.95, True, "high", spans=spans)


def test_only_uncertain_spans_reach_the_judge(llm, client, model):
    verdicts = {"spans": [{"id": 2, "verdict": "hallucinated"}, {"id": 3, "verdict": "supported"}]}
    llm.script(Reply(content=json.dumps(verdicts), prompt_tokens=400, completion_tokens=20))
    item = DetectionInput.build(["ctx"], ANSWER)

    result = cascade(item, _detection(), client, model("judge"), CascadeSettings(0.35, 0.75))

    assert [(d.span.text, d.tier, d.hallucinated) for d in result.decisions] == [
        ("Alpha", "encoder", True),
        ("beta", "llm", True),
        ("gamma", "llm", False),
        ("delta", "encoder", False),
    ]
    prompt = llm.requests[0]["messages"][-1]["content"]
    assert '2. "beta"' in prompt
    assert '3. "gamma"' in prompt
    assert "Alpha" not in prompt.split("check:")[1]
    assert [s.text for s in result.spans] == ["Alpha", "beta"]
    assert result.score == pytest.approx(0.95)
    assert result.detected
    assert sum(d.cost_usd for d in result.decisions) == pytest.approx(result.cost_usd)
    assert result.cost_usd == pytest.approx((400 + 20 * 2) / 1e6)


def test_an_llm_confirmed_span_is_lifted_to_the_band_top(llm, client, model):
    llm.script(json.dumps({"spans": [{"id": 1, "verdict": "hallucinated"}]}))
    det = DetectionResult("verified", 0.4, False, "moderate", spans=[Span(0, 5, "Alpha", 0.4)])

    result = cascade(DetectionInput.build(["c"], ANSWER), det, client, model("judge"))

    assert result.score == pytest.approx(0.75)
    assert result.detected


def test_no_uncertain_spans_means_no_call(llm, client, model):
    det = DetectionResult("verified", 0.95, True, "high", spans=[Span(0, 5, "Alpha", 0.95)])

    result = cascade(DetectionInput.build(["c"], ANSWER), det, client, model("judge"))

    assert llm.requests == []
    assert result.cost_usd == 0.0
    assert result.decisions[0].tier == "encoder"


def test_a_failed_judge_falls_back_to_the_encoder(llm, client, model):
    llm.script("no json here")

    result = cascade(DetectionInput.build(["c"], ANSWER), _detection(), client, model("judge"))

    tiers = {d.span.text: (d.tier, d.hallucinated) for d in result.decisions}
    assert tiers["beta"] == ("encoder_fallback", True)
    assert tiers["gamma"] == ("encoder_fallback", True)
    assert result.warnings
