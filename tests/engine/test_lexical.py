from engine.detectors.base import Detector
from engine.detectors.lexical import LexicalDetector
from engine.types import DetectionInput


def probs(context, response):
    pred = LexicalDetector().predict([DetectionInput.build(context, response)])[0]
    return {response[t.start : t.end]: t.prob for t in pred.tokens}, pred


def test_it_implements_the_detector_protocol():
    det = LexicalDetector()
    assert isinstance(det, Detector)
    assert det.name == "lexical"
    assert det.languages == frozenset({"en"})


def test_absent_numbers_score_highest_and_present_ones_low(eiffel):
    p, _ = probs(eiffel.context, "It was finished in 1950, not 1889.")
    assert p["1950"] >= 0.9
    assert p["1889"] < 0.2


def test_absent_content_words_cross_half_and_present_ones_do_not(eiffel):
    p, _ = probs(eiffel.context, "The tower is made of chocolate.")
    assert p["chocolate"] > 0.5
    assert p["tower"] < 0.2
    assert p["The"] < 0.1
    assert p["."] < 0.1


def test_inflected_forms_count_as_present(eiffel):
    p, _ = probs(eiffel.context, "Eiffel's companies design towers.")
    assert p["companies"] < 0.5
    assert p["towers"] < 0.5
    assert p["design"] < 0.5


def test_absent_proper_nouns_score_above_common_words(eiffel):
    p, _ = probs(eiffel.context, "It was designed by Napoleon using bricks.")
    assert p["Napoleon"] > p["bricks"] > 0.5


def test_a_negation_the_context_never_uses_is_suspicious():
    p, _ = probs(["The bridge opened in May."], "The bridge never opened.")
    assert p["never"] > 0.5


def test_citation_markers_are_not_treated_as_claims(eiffel):
    p, _ = probs(eiffel.context, "It is 330 metres tall [7].")
    assert p["7"] < 0.1


def test_coverage_reports_everything_checked_in_one_window(eiffel):
    _, pred = probs(eiffel.context, "It is 330 metres tall.")
    cov = pred.coverage
    assert cov.context_chars_given == cov.context_chars_checked == sum(map(len, eiffel.context))
    assert cov.answer_tokens_given == cov.answer_tokens_checked == 6
    assert cov.windows == 1
    assert not cov.context_truncated
    assert not cov.answer_truncated
    assert pred.detector_tokens == cov.context_tokens_checked + cov.answer_tokens_checked


def test_empty_context_does_not_raise_and_flags_content():
    p, pred = probs([], "Paris is lovely.")
    assert p["Paris"] > 0.5
    assert pred.coverage.context_chars_given == 0


def test_predictions_are_deterministic_and_in_order(eiffel):
    items = [DetectionInput.build(eiffel.context, r) for r in ("It is tall.", "It is 1 km tall.")]
    det = LexicalDetector()
    a, b = det.predict(items), det.predict(items)
    assert a == b
    assert len(a) == 2
    assert max(t.prob for t in a[1].tokens) > max(t.prob for t in a[0].tokens)


def test_an_absent_word_in_a_grounded_sentence_scores_below_one_in_an_ungrounded_one(eiffel):
    grounded, _ = probs(eiffel.context, "The Eiffel Tower in Paris is 330 metres high.")
    ungrounded, _ = probs(eiffel.context, "Rabbits adore extremely high carrots.")
    assert grounded["high"] < ungrounded["high"]
    swapped, _ = probs(eiffel.context, "The Eiffel Tower in Lyon is 330 metres tall.")
    assert swapped["Lyon"] >= 0.85  # names are never discounted


def test_cjk_and_emoji_answers_keep_exact_character_offsets():
    response = "東京タワーは333メートル 🗼 です 👍🏽 ok"
    pred = LexicalDetector().predict(
        [DetectionInput.build(["東京タワーは333メートルです。"], response)]
    )
    tokens = pred[0].tokens
    surfaces = [response[t.start : t.end] for t in tokens]
    assert "333" in surfaces
    assert "🗼" in surfaces
    assert "東" in surfaces
    assert all(t.end <= len(response) and t.start < t.end for t in tokens)
    by_surface = {response[t.start : t.end]: t.prob for t in tokens}
    assert by_surface["333"] < 0.2 < by_surface["ok"]
