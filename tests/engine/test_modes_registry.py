"""One registry of mitigation modes: everything that lists modes reads it."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine.job_plan import JobPlan, Step
from engine.mitigation.runners import RUNNERS, load_runner
from engine.modes import AUTO, MODE_NAMES, MODES, mode_spec
from engine.policy import PolicyDocument, Resolved
from engine.types import Coverage, DetectionResult, Span


def test_every_registered_mode_has_a_runner_and_a_known_fallback():
    for spec in MODES.values():
        assert callable(load_runner(spec.name))
        assert spec.fallback is None or spec.fallback in MODES
        assert spec.price_key == spec.name


def test_the_runners_are_exactly_the_registered_modes():
    assert set(RUNNERS) == set(MODES)


def test_the_policy_accepts_exactly_the_registered_modes():
    assert PolicyDocument().allowed_modes == list(MODE_NAMES)
    for name in [*MODE_NAMES, AUTO]:
        assert PolicyDocument(default_mode=name).default_mode == name
    with pytest.raises(ValidationError, match="one of 'lightweight', 'standard', 'premium'"):
        PolicyDocument(allowed_modes=[AUTO])  # auto is a choice among modes, not a mode
    with pytest.raises(ValidationError):
        PolicyDocument(default_mode="turbo")
    with pytest.raises(ValueError, match="unknown mode 'turbo'"):
        mode_spec("turbo")


def test_the_api_and_the_policy_editor_offer_the_registered_modes():
    from api.serializers import VerificationRequestSerializer
    from dashboard.policy.forms import MODES as FORM_MODES

    field = VerificationRequestSerializer().fields["mode"]
    assert list(field.choices) == [*MODE_NAMES, AUTO]
    assert [value for value, _ in FORM_MODES] == list(MODE_NAMES)


def _result(score: float, confidence: float = 0.9) -> DetectionResult:
    spans = [Span(0, 4, "1950", confidence, "contradiction")] if score >= 0.5 else []
    return DetectionResult(
        status="verified",
        score=score,
        detected=score >= 0.5,
        risk_level="high" if score >= 0.5 else "low",
        spans=spans,
        coverage=Coverage(),
    )


def _plan(mode: str, enabled: bool = True, **policy) -> JobPlan:
    resolved = Resolved("default", enabled, mode, 0.5, 3, False)
    return JobPlan.build(PolicyDocument(**policy), resolved, "factual_qa", 0.9, mode, "policy")


@pytest.mark.parametrize(
    ("mode", "score", "has_llm", "enabled", "step"),
    [
        ("lightweight", 0.9, True, True, Step.FINISH),  # warns in the detect stage
        ("standard", 0.9, True, True, Step.MITIGATE),
        ("standard", 0.9, False, True, Step.REPAIR),  # no LLM: the no-LLM repair
        ("premium", 0.9, True, True, Step.MITIGATE),
        ("premium", 0.9, False, True, Step.FINISH),  # no LLM and no repair: warned
        ("standard", 0.1, True, True, Step.FINISH),  # passed
        ("standard", 0.9, True, False, Step.FINISH),  # verification off for the decision
    ],
)
def test_next_step_decides_where_a_detected_job_goes(mode, score, has_llm, enabled, step):
    assert _plan(mode, enabled).next_step(_result(score), has_llm) is step


def test_an_uncertain_span_goes_to_the_cascade_even_in_lightweight_mode():
    plan = _plan("lightweight", cascade={"enabled": True, "low": 0.3, "high": 0.95})
    assert plan.next_step(_result(0.9, confidence=0.6), has_llm=True) is Step.MITIGATE
    assert plan.next_step(_result(0.9, confidence=0.6), has_llm=False) is Step.FINISH
    assert plan.next_step(_result(0.9, confidence=0.99), has_llm=True) is Step.FINISH


def test_a_plan_round_trips_through_json():
    plan = _plan("premium", premium={"verification_models": ["a"], "judge_model": "b"})
    again = JobPlan.model_validate(plan.model_dump(mode="json"))
    assert again == plan
    assert again.policy.premium.judge_model == "b"


def test_each_default_is_defined_once_and_the_base_mode_needs_no_llm():
    from engine.modes import BASE_MODE, change_step, rewrites_answer
    from engine.pipeline import DetectionConfig
    from engine.policy import DEFAULT_SKIP_QUERY_TYPES, DEFAULT_THRESHOLD

    assert not MODES[BASE_MODE].needs_llm
    assert PolicyDocument().default_mode == BASE_MODE
    config, policy = DetectionConfig(), PolicyDocument()
    assert config.threshold == policy.threshold == DEFAULT_THRESHOLD
    assert config.token_threshold == policy.token_threshold
    assert config.skip_query_types == tuple(policy.skip_query_types) == DEFAULT_SKIP_QUERY_TYPES
    # a new mode need not edit this test: it names the three shipped modes only
    assert not rewrites_answer(BASE_MODE)
    assert rewrites_answer("standard")
    assert rewrites_answer("premium")
    assert rewrites_answer("repair")  # not a mode: a rewritten answer
    assert change_step("repair") == "repair"
    assert change_step("standard") == "repair"
    assert change_step("premium") == "judge"
