import dataclasses

import pytest

from engine import (
    DetectionConfig,
    DetectionInput,
    LexicalDetector,
    verify,
    verify_batch,
)
from engine.query_types import QueryTypeClassifier
from engine.types import Coverage

RULES_ONLY = QueryTypeClassifier(encoder=None)  # fast and deterministic for pipeline tests
CONFIG = DetectionConfig(explain_embeddings=False)


def run(item, detector=None, config=CONFIG):
    return verify(item, config, detector or LexicalDetector(), classifier=RULES_ONLY)


def test_a_grounded_answer_is_verified_and_not_detected(eiffel):
    # given an answer that only restates the context
    item = DetectionInput.build(eiffel.context, "It is 330 metres tall.", "How tall is the tower?")
    # when
    result = run(item)
    # then
    assert result.status == "verified"
    assert result.detected is False
    assert result.risk_level == "low"
    assert result.score == result.model_score == 0.0
    assert result.detector == "lexical"
    assert result.threshold == 0.5
    assert result.coverage.language == "en"
    assert result.detector_tokens > 0


def test_a_wrong_date_is_detected_as_a_contradiction(eiffel):
    item = DetectionInput.build(
        eiffel.context, "The tower was built in 1950.", "When was it built?"
    )
    result = run(item)
    assert result.status == "verified"
    assert result.detected is True
    assert result.risk_level == "high"
    assert result.query_type == "factual_qa"
    [span] = result.spans
    assert span.text == "1950"
    assert span.label == "contradiction"
    assert span.reason
    assert item.response[span.start : span.end] == "1950"


def test_non_factual_queries_are_skipped_by_policy(eiffel):
    detector = LexicalDetector()
    result = run(
        DetectionInput.build(eiffel.context, "Iron lady", "Write a poem about it"), detector
    )
    assert result.status == "skipped"
    assert result.query_type == "creative"
    assert result.score is None
    assert result.detected is None
    assert "creative" in result.reason
    kept = dataclasses.replace(CONFIG, skip_query_types=())
    assert run(
        DetectionInput.build(eiffel.context, "Iron lady", "Write a poem"), config=kept
    ).status == ("verified")


@pytest.mark.parametrize("context", [None, [], "", ["  ", ""]])
def test_missing_context_is_unverifiable_never_a_pass(context):
    result = run(DetectionInput.build(context, "Paris is the capital.", "What is the capital?"))
    assert result.status == "unverifiable"
    assert result.detected is None
    assert result.score is None
    assert "context" in result.reason


def test_an_answer_in_an_unsupported_language_without_values_is_unverifiable(eiffel):
    answer = "Der Eiffelturm wurde aus Eisen gebaut und steht mitten in Paris."
    result = run(DetectionInput.build(eiffel.context, answer, "When?"))
    assert result.status == "unverifiable"
    assert "'de'" in result.reason
    assert result.coverage.language == "de"
    assert not result.coverage.language_supported


def test_a_cut_context_turns_a_would_be_pass_into_unverifiable(eiffel):
    config = dataclasses.replace(CONFIG, max_context_chars=60)
    result = run(
        DetectionInput.build(eiffel.context, "The tower was built in 1887.", "When?"), config=config
    )
    assert result.status == "unverifiable"
    assert "truncated" in result.reason
    assert result.coverage.context_truncated
    assert result.coverage.context_chars_checked == 60
    assert result.coverage.context_chars_given == sum(map(len, eiffel.context))


def test_a_cut_input_still_reports_a_detected_hallucination(eiffel):
    config = dataclasses.replace(CONFIG, max_context_chars=60)
    result = run(
        DetectionInput.build(eiffel.context, "It was built in 1950.", "When?"), config=config
    )
    assert result.status == "verified"
    assert result.detected is True


def test_detector_reported_answer_truncation_is_not_a_silent_pass(eiffel, scripted):
    detector = scripted(
        coverage=Coverage(
            answer_tokens_given=900, answer_tokens_checked=512, answer_truncated=True, windows=2
        )
    )
    result = run(DetectionInput.build(eiffel.context, "It is tall.", "How tall?"), detector)
    assert result.status == "unverifiable"
    assert "answer" in result.reason


def test_verify_batch_calls_the_detector_once_for_all_checkable_items(eiffel, scripted):
    detector = scripted(probs={"1950": 0.97})
    items = [
        DetectionInput.build(eiffel.context, "It was built in 1950.", "When was it built?"),
        DetectionInput.build(eiffel.context, "Roses are red", "Write a poem"),
        DetectionInput.build([], "No context here.", "Where?"),
        DetectionInput.build(eiffel.context, "It is 330 metres tall.", "How tall is it?"),
    ]
    results = verify_batch(items, CONFIG, detector, classifier=RULES_ONLY)
    assert detector.calls == [2]
    assert [r.status for r in results] == ["verified", "skipped", "unverifiable", "verified"]
    assert results[0].detected is True
    assert results[3].detected is False
    assert results[0].score == pytest.approx(0.97)


def test_entailed_spans_are_dropped_and_no_longer_count(eiffel, scripted):
    # the detector flags a phrase that the context states verbatim
    detector = scripted(probs={"330": 0.8, "metres": 0.8})
    result = run(
        DetectionInput.build(eiffel.context, "It is 330 metres tall.", "How tall?"), detector
    )
    assert result.spans == []
    assert result.detected is False
    assert result.score == 0.0
    noisy = dataclasses.replace(CONFIG, aggregation="noisy_or")
    assert (
        run(
            DetectionInput.build(eiffel.context, "It is 330 metres tall.", "How tall?"),
            detector,
            noisy,
        ).score
        == 0.0
    )
    # with neither explanations nor typed checks, nothing discounts the detector's 0.8
    unexplained = dataclasses.replace(CONFIG, explain=False, typed_checks=False)
    assert run(
        DetectionInput.build(eiffel.context, "It is 330 metres tall.", "How tall?"),
        detector,
        unexplained,
    ).score == pytest.approx(0.8)
    # the typed checks alone see that "330 metres" is stated in the context
    typed_only = dataclasses.replace(CONFIG, explain=False)
    assert (
        run(
            DetectionInput.build(eiffel.context, "It is 330 metres tall.", "How tall?"),
            detector,
            typed_only,
        ).score
        < 0.5
    )


def test_noisy_or_aggregation_combines_several_suspicious_tokens(eiffel, scripted):
    detector = scripted(probs={"copper": 0.6, "silver": 0.6})
    config = dataclasses.replace(CONFIG, aggregation="noisy_or")
    result = run(
        DetectionInput.build(eiffel.context, "It was copper, then silver.", "Colour?"),
        detector,
        config,
    )
    assert result.model_score == pytest.approx(1 - 0.4 * 0.4)
    assert run(
        DetectionInput.build(eiffel.context, "It was copper, then silver.", "Colour?"), detector
    ).model_score == pytest.approx(0.6)


def test_invalid_citations_raise_the_score_but_model_score_stays_separate(eiffel):
    answer = "The tower was built from 1887 to 1889 for the World's Fair in Paris [4]."
    result = run(DetectionInput.build(eiffel.context, answer, "When was it built?"))
    assert result.model_score == 0.0
    assert result.citations is not None
    assert result.citations.invalid == ["4"]
    assert result.score == pytest.approx(0.5 * 1.0)
    assert result.detected is True


def test_cjk_and_emoji_spans_keep_answer_offsets(scripted):
    detector = scripted(probs={"大": 0.9, "阪": 0.9}, languages=frozenset({"zh", "ja"}))
    response = "🗼👍🏽 塔在大阪。"
    result = run(DetectionInput.build(["塔在东京。"], response, None), detector)
    [span] = result.spans
    assert span.text == "大阪"
    assert response[span.start : span.end] == "大阪"
    assert span.evidence is not None
    assert span.evidence.text == "塔在东京。"


def test_config_rejects_invalid_values():
    with pytest.raises(ValueError, match="threshold"):
        DetectionConfig(threshold=1.5)
    with pytest.raises(ValueError, match="aggregation must be one of .*'span_max'"):
        DetectionConfig(aggregation="mean")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="poetry"):
        DetectionConfig(skip_query_types=("poetry",))


def test_results_serialise_to_plain_dicts(eiffel):
    result = run(DetectionInput.build(eiffel.context, "It was built in 1950.", "When?"))
    data = result.to_dict()
    assert data["spans"][0]["evidence"]["passage_index"] == 0
    assert data["status"] == "verified"


def test_default_classifier_and_embeddings_path_works_end_to_end(eiffel, encoder):
    result = verify(
        DetectionInput.build(
            eiffel.context, "The tower was built in 1950.", "When was the tower built?"
        ),
        DetectionConfig(),
        LexicalDetector(),
    )
    assert result.query_type == "factual_qa"
    assert result.query_type_confidence > 0.5
    assert result.detected is True
    assert result.spans[0].label == "contradiction"


def test_an_empty_batch_never_calls_the_detector(scripted):
    detector = scripted()
    assert verify_batch([], CONFIG, detector, classifier=RULES_ONLY) == []
    assert detector.calls == []


def test_a_detector_returning_the_wrong_number_of_predictions_is_an_error(eiffel, scripted):
    class Broken(scripted):  # type: ignore[misc,valid-type]
        def predict(self, items):
            return []

    with pytest.raises(RuntimeError, match="returned 0 predictions"):
        run(DetectionInput.build(eiffel.context, "It is tall.", "How tall?"), Broken())
