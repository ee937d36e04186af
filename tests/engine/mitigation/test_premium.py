"""Premium mode: verification models in parallel, claim comparison, the judge and its failures."""

from __future__ import annotations

import json

import pytest

from engine import PremiumSettings, cross_check
from engine.types import DetectionInput
from tests.fixtures.fake_detection import fake_redetect
from tests.fixtures.fake_llm import Reply

CONTEXT = [
    "The tower was completed in 1889. It stands in Paris.",
    "Revenue grew 12% in 2023 according to the annual report.",
]
QUERY = "Tell me about the tower and the revenue."


def _router(answers: dict[str, Reply | str]):
    """Reply by model name, so parallel calls get the right answer whatever their order."""

    def respond(body):
        reply = answers[body["model"]]
        return Reply(content=reply) if isinstance(reply, str) else reply

    return respond


def _judge(*claims: dict) -> str:
    return "```json\n" + json.dumps({"claims": list(claims)}) + "\n```"


def _run(client, model, response, settings=None, judge="judge"):
    item = DetectionInput.build(CONTEXT, response, QUERY)
    return cross_check(
        item,
        fake_redetect(item),
        fake_redetect,
        client,
        [model("verifier-a"), model("verifier-b")],
        model(judge) if judge else None,
        settings,
    )


def test_when_models_agree_no_judge_is_called(llm, client, model):
    grounded = "The tower was completed in 1889. Revenue grew 12% in 2023."
    llm.responder = _router(
        {
            "verifier-a": "The tower was completed in 1889 in Paris.",
            "verifier-b": "Revenue grew 12% in 2023. The tower was completed in 1889.",
        }
    )

    result = _run(client, model, grounded)

    assert result.stop_reason == "agreement"
    assert result.converged
    assert result.final_response == grounded
    assert sorted(r["model"] for r in llm.requests) == ["verifier-a", "verifier-b"]
    assert [c.role for c in result.calls] == ["verify", "verify"]


def test_the_judge_replaces_a_disputed_claim_with_the_evidence(llm, client, model):
    llm.responder = _router(
        {
            "verifier-a": "The tower was completed in 1889.",
            "verifier-b": "It was finished in 1889 and stands in Paris.",
            "judge": _judge(
                {"id": 1, "action": "replace", "replacement": "The tower was completed in 1889."}
            ),
        }
    )

    result = _run(client, model, "The tower was completed in 1950. It stands in Paris.")

    assert result.final_response == "The tower was completed in 1889. It stands in Paris."
    assert result.converged
    assert result.stop_reason == "resolved"
    assert [(c.kind, c.before, c.tier) for c in result.changes] == [
        ("replaced", "The tower was completed in 1950.", "judge")
    ]
    judge_prompt = next(r for r in llm.requests if r["model"] == "judge")["messages"][-1]
    assert 'Claim 1: "The tower was completed in 1950."' in judge_prompt["content"]
    assert '"1950"' in judge_prompt["content"]  # the detector's evidence
    assert 'Another model says: "The tower was completed in 1889."' in judge_prompt["content"]
    assert "It stands in Paris" not in judge_prompt["content"].split("Disputed claims")[1]


def test_a_conflict_between_models_alone_goes_to_the_judge(llm, client, model):
    # The detector is happy; only another model's different figure raises the dispute.
    llm.responder = _router(
        {
            "verifier-a": "Revenue grew 15% in 2023.",
            "verifier-b": "Revenue grew 12% in 2023.",
            "judge": _judge({"id": 1, "action": "keep", "reason": "the report says 12%"}),
        }
    )

    result = _run(client, model, "Revenue grew 12% in 2023.")

    assert any(r["model"] == "judge" for r in llm.requests)
    assert result.final_response == "Revenue grew 12% in 2023."
    assert [(c.kind, c.tier) for c in result.changes] == [("kept", "judge")]


def test_the_judge_removes_an_unsupported_claim(llm, client, model):
    llm.responder = _router(
        {
            "verifier-a": "The tower was completed in 1889.",
            "verifier-b": "The tower stands in Paris.",
            "judge": _judge({"id": 2, "action": "remove"}),
        }
    )

    result = _run(client, model, "The tower was completed in 1889. Gustave Eiffel loved cheese.")

    assert result.final_response == "The tower was completed in 1889."
    assert result.converged


def test_a_failed_judge_keeps_grounded_claims_and_qualifies_disputed_ones(llm, client, model):
    llm.responder = _router(
        {
            "verifier-a": "The tower was completed in 1889.",
            "verifier-b": "The tower was completed in 1889.",
            "judge": Reply(status=500),
        }
    )

    result = _run(client, model, "The tower was completed in 1950. It stands in Paris.")

    assert result.stop_reason == "judge_failed"
    assert result.final_response == (
        "(Not confirmed by the provided context) The tower was completed in 1950. "
        "It stands in Paris."
    )
    assert [(c.kind, c.tier) for c in result.changes] == [("qualified", "fallback")]
    assert any("judge failed" in w for w in result.diagnostics)
    judge_calls = [c for c in result.calls if c.role == "judge"]
    assert judge_calls[0].error
    assert judge_calls[0].attempts == 3


def test_malformed_judge_json_is_handled_like_a_failure(llm, client, model):
    llm.responder = _router(
        {
            "verifier-a": "The tower was completed in 1889.",
            "verifier-b": "The tower was completed in 1889.",
            "judge": "I think claim 1 should be {replaced, maybe",
        }
    )

    result = _run(client, model, "The tower was completed in 1950.")

    assert result.stop_reason == "judge_failed"
    assert result.final_response.startswith("(Not confirmed by the provided context)")
    assert "not usable JSON" in " ".join(result.diagnostics)


@pytest.mark.parametrize(
    ("consensus", "expected"),
    [
        (True, "(Not confirmed by the provided context) The tower was completed in 1950."),
        (False, "The tower was completed in 1950."),
    ],
)
def test_require_consensus_qualifies_what_the_judge_left_open(
    llm, client, model, consensus, expected
):
    llm.responder = _router(
        {
            "verifier-a": "The tower was completed in 1889.",
            "verifier-b": "The tower was completed in 1889.",
            "judge": _judge(),  # no ruling on any claim
        }
    )

    result = _run(
        client,
        model,
        "The tower was completed in 1950.",
        PremiumSettings(require_consensus=consensus),
    )

    assert result.final_response == expected
    assert result.changes[0].kind == ("qualified" if consensus else "kept")


def test_a_failed_verification_model_does_not_stop_the_others(llm, client, model):
    llm.responder = _router(
        {
            "verifier-a": Reply(status=400),
            "verifier-b": "The tower was completed in 1889.",
            "judge": _judge(
                {"id": 1, "action": "replace", "replacement": "The tower was completed in 1889."}
            ),
        }
    )

    result = _run(client, model, "The tower was completed in 1950.")

    assert result.final_response == "The tower was completed in 1889."
    assert any("verifier-a" in w for w in result.diagnostics)


def test_premium_costs_add_up_to_the_sum_of_calls(llm, client, model):
    llm.responder = _router(
        {
            "verifier-a": Reply(content="The tower was completed in 1889.", prompt_tokens=300),
            "verifier-b": Reply(content="The tower was completed in 1889.", prompt_tokens=310),
            "judge": Reply(
                content=_judge({"id": 1, "action": "remove"}),
                prompt_tokens=500,
                completion_tokens=40,
            ),
        }
    )

    result = _run(client, model, "The tower was completed in 1950. It stands in Paris.")

    assert len(result.calls) == 3
    expected = ((300 + 310 + 500) * 1.0 + (10 + 10 + 40) * 2.0) / 1e6
    assert result.cost_usd == pytest.approx(expected)
    assert result.cost_usd == pytest.approx(sum(it.cost_usd for it in result.iterations))


def test_a_second_round_asks_the_judge_again_but_not_the_verifiers(llm, client, model):
    # given a judge whose first fix is still wrong and whose second is right
    fixes = iter(["The tower was completed in 1890.", "The tower was completed in 1889."])
    verifiers = {"verifier-a": "The tower was completed in 1889.", "verifier-b": "It is in Paris."}

    def respond(body):
        if body["model"] == "judge":
            return Reply(content=_judge({"id": 1, "action": "replace", "replacement": next(fixes)}))
        return Reply(content=verifiers[body["model"]])

    llm.responder = respond

    # when
    result = _run(
        client, model, "The tower was completed in 1950.", PremiumSettings(max_iterations=3)
    )

    # then
    assert result.final_response == "The tower was completed in 1889."
    assert result.stop_reason == "resolved"
    assert [c.role for c in result.calls] == ["verify", "verify", "judge", "judge"]
    assert [it.answer for it in result.iterations][1:] == [
        "The tower was completed in 1890.",
        "The tower was completed in 1889.",
    ]


def test_verification_calls_the_budget_cannot_cover_are_skipped(llm, client, model):
    from engine import Budget
    from engine.mitigation.prompts import answer_messages

    llm.responder = _router(
        {
            "verifier-a": "The tower was completed in 1889.",
            "verifier-b": "The tower was completed in 1889.",
        }
    )
    one_call = client.estimate_cost(model("verifier-a"), answer_messages(CONTEXT, QUERY))
    item = DetectionInput.build(CONTEXT, "The tower was completed in 1889.", QUERY)
    budget = Budget(per_request_usd=one_call * 1.5)

    result = cross_check(
        item, fake_redetect(item), fake_redetect, client,
        [model("verifier-a"), model("verifier-b")], model("judge"), budget=budget,
    )  # fmt: skip

    assert len(llm.requests) == 1
    assert any("skipped" in w for w in result.diagnostics)
    assert budget.spent_usd == pytest.approx(result.cost_usd)
