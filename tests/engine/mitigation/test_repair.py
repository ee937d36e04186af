"""No-LLM repair: evidence values replace contradictions, unsupported sentences go or get qualified."""

from __future__ import annotations

from engine.mitigation.repair import RepairSettings, evidence_value, repair
from engine.types import DetectionInput, DetectionResult, Evidence, Span
from tests.fixtures.fake_detection import fake_redetect

Q = "(Not confirmed by the provided context) "


def _span(text: str, answer: str, label="contradiction", evidence: str | None = None) -> Span:
    start = answer.index(text)
    ev = Evidence(0, 0, len(evidence), evidence) if evidence else None
    return Span(start, start + len(text), text, 0.9, label, ev)  # type: ignore[arg-type]


def _detection(*spans: Span) -> DetectionResult:
    return DetectionResult("verified", 0.9, True, "high", spans=list(spans))


def test_a_contradicted_year_takes_the_evidence_value():
    answer = "The tower was completed in 1950. It stands in Paris."
    item = DetectionInput.build(["The tower was completed in 1889."], answer)
    det = _detection(_span("1950", answer, evidence="The tower was completed in 1889."))

    result = repair(item, det)

    assert result.final_response == "The tower was completed in 1889. It stands in Paris."
    (change,) = result.changes
    assert (change.kind, change.before, change.after) == ("replaced", "1950", "1889")
    assert answer[change.start : change.end] == "1950"


def test_with_several_candidates_the_value_in_the_same_slot_wins():
    answer = "Work on the tower was completed in 1950."
    evidence = "Construction began in 1887 and was completed in 1889."
    span = _span("completed in 1950", answer, evidence=evidence)

    assert evidence_value(answer, span) == "1889"


def test_values_of_another_kind_are_never_swapped_in():
    answer = "Revenue grew 15% last year."
    span = _span("15%", answer, evidence="Revenue reached 2023 levels, up 12% on the year.")

    assert evidence_value(answer, span) == "12%"


def test_an_ambiguous_contradiction_is_qualified_not_guessed():
    answer = "The bridge is 300 metres long."
    evidence = "The bridge spans 120 metres and its towers rise 80 metres."
    item = DetectionInput.build([evidence], answer)

    result = repair(item, _detection(_span("300", answer, evidence=evidence)))

    assert result.final_response == Q + answer
    assert result.changes[0].kind == "qualified"


def test_an_unsupported_sentence_is_removed():
    answer = "The tower was completed in 1889. Eiffel loved cheese."
    item = DetectionInput.build(["The tower was completed in 1889."], answer)

    result = repair(item, _detection(_span("Eiffel loved cheese", answer, "unsupported")))

    assert result.final_response == "The tower was completed in 1889."
    assert [(c.kind, c.before) for c in result.changes] == [("removed", "Eiffel loved cheese.")]


def test_a_sentence_with_a_small_unsupported_part_is_qualified():
    answer = "The tower, painted bright green, was completed in 1889 in Paris for the fair."
    item = DetectionInput.build(["The tower was completed in 1889 in Paris."], answer)

    result = repair(item, _detection(_span("bright green", answer, "unsupported")))

    assert result.final_response == Q + answer


def test_the_answer_is_never_emptied():
    answer = "Eiffel loved cheese."
    item = DetectionInput.build(["The tower was completed in 1889."], answer)

    result = repair(item, _detection(_span("Eiffel loved cheese", answer, "unsupported")))

    assert result.final_response == Q + answer


def test_qualify_everything_setting():
    answer = "The tower was completed in 1889. Eiffel loved cheese."
    item = DetectionInput.build(["The tower was completed in 1889."], answer)
    det = _detection(_span("Eiffel loved cheese", answer, "unsupported"))

    result = repair(item, det, RepairSettings(unsupported="qualify"))

    assert result.final_response == f"The tower was completed in 1889. {Q}Eiffel loved cheese."


def test_it_rescores_with_the_detector_when_given_one():
    context = ["The tower was completed in 1889."]
    answer = "The tower was completed in 1950."
    item = DetectionInput.build(context, answer)
    det = _detection(_span("1950", answer, evidence=context[0]))

    result = repair(item, det, redetect=fake_redetect)

    assert result.final_response == "The tower was completed in 1889."
    assert result.final_score is not None
    assert result.final_score < 0.5
    assert result.converged
    assert result.cost_usd == 0.0
    assert result.calls == []


def test_nothing_flagged_means_nothing_changed():
    item = DetectionInput.build(["x"], "Fine answer.")

    result = repair(item, DetectionResult("verified", 0.05, False, "low"))

    assert result.final_response == "Fine answer."
    assert result.stop_reason == "nothing_to_repair"
