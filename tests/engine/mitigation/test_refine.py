"""Standard mode: the self-refine loop against the fake provider and the fake detector."""

from __future__ import annotations

import pytest

from engine import Budget
from engine.mitigation.refine import RefineSettings, refine
from engine.policy import PolicyDocument
from engine.types import DetectionInput
from tests.fixtures.fake_detection import fake_redetect
from tests.fixtures.fake_llm import Reply

CONTEXT = ["The Eiffel Tower was completed in 1889 in Paris for the World Fair."]
QUERY = "When and where was the Eiffel Tower completed?"
WRONG = "The Eiffel Tower was completed in 1950 in Lyon."
RIGHT = "The Eiffel Tower was completed in 1889 in Paris."


def _item(response: str = WRONG) -> DetectionInput:
    return DetectionInput.build(CONTEXT, response, QUERY)


def _run(client, model, item=None, budget=None, **settings):
    item = item or _item()
    return refine(
        item,
        fake_redetect(item),
        fake_redetect,
        client,
        model(),
        RefineSettings(**settings) if settings else None,
        budget,
    )


def test_it_converges_on_a_corrected_answer(llm, client, model):
    llm.script(RIGHT)

    result = _run(client, model)

    assert result.converged
    assert result.stop_reason == "converged"
    assert result.final_response == RIGHT
    assert result.disclaimer is None
    assert [it.answer for it in result.iterations] == [WRONG, RIGHT]
    assert result.iterations[1].score < 0.3


def test_the_prompt_names_each_span_with_label_and_confidence_and_gives_the_context(
    llm, client, model
):
    llm.script(RIGHT)

    _run(client, model)

    prompt = llm.requests[0]["messages"][-1]["content"]
    assert '"1950" - contradiction, confidence 0.75' in prompt
    assert '"Lyon" - unsupported, confidence 0.75' in prompt
    assert CONTEXT[0] in prompt
    assert QUERY in prompt
    assert WRONG in prompt
    assert "Keep every grounded part" in prompt
    assert "Return only the revised answer" in prompt


def test_it_strips_what_models_wrap_around_the_answer(llm, client, model):
    llm.script(f"Revised answer: {RIGHT}")

    result = _run(client, model)

    assert result.final_response == RIGHT


def test_it_stops_when_the_model_oscillates_and_keeps_the_best(llm, client, model):
    half = "The Eiffel Tower was completed in 1889 in Lyon."
    llm.script(half, WRONG, RIGHT)

    result = _run(client, model, max_iterations=5)

    assert result.stop_reason == "oscillation"
    assert not result.converged
    assert result.final_response.startswith(half)
    assert result.disclaimer
    assert '"Lyon"' in result.disclaimer
    assert result.final_response.endswith(result.disclaimer)
    assert len(llm.requests) == 2  # the third scripted answer was never asked for


def test_it_stops_at_max_iterations_with_the_best_answer_and_a_disclaimer(llm, client, model):
    item = _item("The Eiffel Tower was completed in 1950 in Lyon by Bob Smith.")  # 4 flagged
    llm.script(
        "The Eiffel Tower was completed in 1950 in Lyon by Bob.",  # 3 flagged
        "The Eiffel Tower was completed in 1950 in Lyon.",  # 2 flagged
        "The Eiffel Tower was completed in 1889 in Lyon.",  # 1 flagged: 0.5, still > 0.3
    )

    result = _run(client, model, item=item, max_iterations=3)

    assert result.stop_reason == "max_iterations"
    assert not result.converged
    assert len(result.iterations) == 4
    scores = [it.score for it in result.iterations]
    assert scores == sorted(scores, reverse=True)
    assert result.final_score == pytest.approx(0.5)
    assert result.final_response.startswith("The Eiffel Tower was completed in 1889 in Lyon.")
    assert result.disclaimer
    assert "0.50" in result.disclaimer
    assert '"Lyon"' in result.disclaimer
    assert result.final_response.endswith(result.disclaimer)


def test_it_gives_up_after_rounds_without_progress(llm, client, model):
    llm.script(
        "The Eiffel Tower was completed in 1950 in Marseille.",
        "The Eiffel Tower was completed in 1950 in Nice.",
        RIGHT,
    )

    result = _run(client, model, max_iterations=5, patience=2)

    assert result.stop_reason == "no_progress"
    assert result.final_response.startswith(WRONG)  # nothing beat the original


def test_it_stops_before_a_call_the_budget_cannot_pay(llm, client, model):
    # The first reply reports heavy usage, so the second round's estimate no longer fits.
    llm.script(
        Reply(content="The Eiffel Tower was completed in 1889 in Lyon.", prompt_tokens=50_000),
        RIGHT,
    )
    first_estimate = client.estimate_cost(model(), _refine_prompt())
    budget = Budget(per_request_usd=first_estimate * 1.5)

    result = _run(client, model, budget=budget)

    assert result.stop_reason == "budget"
    assert len(llm.requests) == 1
    assert len(result.calls) == 1
    assert budget.spent_usd == pytest.approx(result.cost_usd)
    assert result.final_response.startswith("The Eiffel Tower was completed in 1889 in Lyon.")
    assert any("budget" in w for w in result.diagnostics)


def _refine_prompt():
    from engine.mitigation.prompts import refinement_messages

    item = _item()
    return refinement_messages(item.context, item.query, item.response, fake_redetect(item).spans)


def test_an_llm_failure_returns_the_original_with_a_disclaimer(llm, client, model):
    llm.script(Reply(status=401))

    result = _run(client, model)

    assert result.stop_reason == "llm_error"
    assert result.final_response.startswith(WRONG)
    assert result.disclaimer
    assert result.calls[0].error


def test_an_answer_already_under_the_threshold_costs_nothing(llm, client, model):
    result = _run(client, model, item=_item(RIGHT))

    assert result.stop_reason == "already_converged"
    assert result.calls == []
    assert llm.requests == []


def test_costs_add_up_to_the_sum_of_calls(llm, client, model):
    llm.script(
        Reply(content="The Eiffel Tower was completed in 1889 in Lyon.", prompt_tokens=120),
        Reply(content=RIGHT, prompt_tokens=140, completion_tokens=30),
    )

    result = _run(client, model)

    assert len(result.calls) == 2
    assert result.cost_usd == pytest.approx(sum(c.cost_usd for c in result.calls))
    assert result.cost_usd == pytest.approx(sum(it.cost_usd for it in result.iterations))
    assert result.cost_usd == pytest.approx(((120 + 140) * 1.0 + (10 + 30) * 2.0) / 1e6)
    assert result.to_dict()["cost_usd"] == pytest.approx(result.cost_usd)


def test_settings_come_from_the_policy():
    policy = PolicyDocument.model_validate(
        {"standard": {"max_iterations": 4, "convergence_threshold": 0.2}}
    )

    assert RefineSettings.from_policy(policy).max_iterations == 4
    assert RefineSettings.from_policy(policy, max_iterations=2).max_iterations == 2
    assert RefineSettings.from_policy(policy).convergence_threshold == 0.2
