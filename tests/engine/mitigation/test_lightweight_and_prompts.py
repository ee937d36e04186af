"""Lightweight warnings, headers, and robust parsing of model replies."""

from __future__ import annotations

from engine.mitigation.lightweight import headers, lightweight, warning_text
from engine.mitigation.prompts import (
    clean_answer,
    parse_cascade_reply,
    parse_json_reply,
    parse_judge_reply,
)
from engine.mitigation.segments import split_sentences
from engine.policy import PolicyDocument
from engine.types import DetectionInput, DetectionResult, Span


def _det() -> DetectionResult:
    return DetectionResult(
        "verified", 0.91, True, "high", spans=[Span(29, 33, "1950", 0.97, "contradiction")]
    )


def test_the_warning_renders_the_policy_template():
    policy = PolicyDocument(warning_template="Score {score:.1f} over {threshold}: {spans}")

    text = warning_text(policy.warning_template, _det(), 0.6)

    assert text == 'Score 0.9 over 0.6: "1950" (contradiction, 0.97)'


def test_lightweight_leaves_the_answer_and_costs_nothing():
    item = DetectionInput.build(["ctx"], "The Eiffel Tower was built in 1950.")

    result = lightweight(item, _det(), 0.5)

    assert result.final_response == item.response
    assert result.calls == []
    assert result.cost_usd == 0.0
    assert "0.91" in result.warnings[0]
    assert '"1950"' in result.warnings[0]


def test_headers():
    h = headers(True, "standard", 0.91234, True, 2, 1262.4)

    assert h == {
        "X-TruthLens-Enabled": "true",
        "X-TruthLens-Mode": "standard",
        "X-TruthLens-Score": "0.9123",
        "X-TruthLens-Detected": "true",
        "X-TruthLens-Iterations": "2",
        "X-TruthLens-Latency-Ms": "1262",
    }
    assert headers(True, "lightweight", None, None, 0, 3)["X-TruthLens-Detected"] == "unknown"


def test_json_is_found_in_fences_prose_and_with_trailing_commas():
    assert parse_json_reply('```json\n{"a": 1}\n```') == {"a": 1}
    assert parse_json_reply('Sure! Here it is: {"a": [1, 2,],} hope it helps') == {"a": [1, 2]}
    assert parse_json_reply("no json at all") is None
    assert parse_json_reply("{broken") is None


def test_judge_parsing_drops_unknown_ids_and_empty_replacements():
    reply = (
        '{"claims": [{"id": 1, "action": "REPLACE", "replacement": "X."},'
        ' {"id": 2, "action": "replace", "replacement": ""},'
        ' {"id": 9, "action": "remove"}, {"id": "3", "action": "keep"}, "junk"]}'
    )

    verdicts = parse_judge_reply(reply, [1, 2, 3])

    assert verdicts is not None
    assert sorted(verdicts) == [1, 3]
    assert verdicts[1].action == "replace"
    assert verdicts[1].replacement == "X."


def test_cascade_parsing_keeps_known_ids_with_a_valid_verdict():
    reply = (
        'Sure: {"spans": [{"id": 1, "verdict": "Hallucinated"}, {"id": "2", "verdict": "supported"},'
        ' {"id": 3, "verdict": "maybe"}, {"id": 9, "verdict": "supported"}, {"id": null}, 7]}'
    )

    assert parse_cascade_reply(reply, [1, 2, 3]) == {1: True, 2: False}
    assert parse_cascade_reply('[{"id": 1, "verdict": "supported"}]', [1]) == {1: False}
    assert parse_cascade_reply('{"claims": []}', [1]) is None
    assert parse_cascade_reply("no JSON here", [1]) is None


def test_clean_answer():
    assert clean_answer("```\nThe answer.\n```") == "The answer."
    assert clean_answer("Here is the revised answer: The answer.") == "The answer."
    assert clean_answer('"The answer."') == "The answer."


def test_sentences_keep_their_offsets():
    text = "Dr. Smith built it in 1887. It is 330.5 m tall, approx. 1,083 ft!\n- a bullet"

    segments = split_sentences(text)

    assert [s.text for s in segments] == [
        "Dr. Smith built it in 1887.",
        "It is 330.5 m tall, approx. 1,083 ft!",
        "- a bullet",
    ]
    assert all(text[s.start : s.end] == s.text for s in segments)


def test_agreement_flags_changed_values_even_when_sentences_look_alike():
    from engine.mitigation.agreement import compare, embedding_similarity

    class BagOfWords:  # a stand-in encoder: unit vectors over a tiny vocabulary
        vocab = ["tower", "completed", "built", "1889", "1950", "paris", "cheese"]
        calls = 0

        def encode(self, texts):
            import numpy as np

            BagOfWords.calls += 1
            rows = []
            for t in texts:
                v = np.array([float(w in t.lower()) for w in self.vocab]) + 1e-6
                rows.append(v / np.linalg.norm(v))
            return np.array(rows)

    sim = embedding_similarity(BagOfWords())
    others = split_sentences("The tower was completed in 1889. It is in Paris.")

    assert compare("The tower was completed in 1950.", others, sim).stance == "conflict"
    assert compare("The tower was completed in 1889.", others, sim).stance == "agree"
    assert compare("Eiffel liked cheese.", others, sim).stance == "absent"
    assert BagOfWords.calls <= 5  # each sentence encoded once
