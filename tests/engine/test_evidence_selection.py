"""Evidence selection (issue 26, item 1): the detector reads the context sentences that
can bear on the answer; offsets still name the request's passages, a short context is
read whole, and the whole-context path stays a policy option."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import DetectionConfig, DetectionInput, LexicalDetector, verify
from engine.evidence_selection import budget_for, select_evidence
from engine.job_plan import detection_config
from engine.policy import PolicyDocument
from engine.query_types import QueryTypeClassifier

RULES_ONLY = QueryTypeClassifier(encoder=None)
DETECTOR = LexicalDetector()

FILLER = [
    f"Section {n}. The committee reviewed the archive policy for regional office number {n} "
    f"and agreed to revisit the shelving plan after the audit of quarter {n % 4 + 1}."
    for n in range(60)
]
FACTS = (
    "The Harbour Line ferry leaves Pier 4 at 08:20 and reaches Castle Quay at 08:55. "
    "It runs every day except public holidays. A weekly pass costs €21."
)


def long_context() -> list[str]:
    return [" ".join(FILLER[:30]), FACTS, " ".join(FILLER[30:])]


def test_a_context_that_fits_the_answers_budget_is_read_whole():
    answer = "The ferry leaves Pier 4 at 08:20."
    assert select_evidence([FACTS], answer) is None
    assert budget_for(answer) >= len(FACTS)


def test_the_aligned_sentence_and_its_neighbours_are_selected_with_their_offsets():
    context = long_context()
    answer = "The ferry leaves Pier 4 at 08:20 and reaches Castle Quay at 08:55."
    selection = select_evidence(context, answer, "When does the ferry leave?")
    assert selection is not None
    assert selection.chars_selected < selection.chars_given / 4
    for piece in selection.pieces:
        assert context[piece.passage][piece.start : piece.start + len(piece.text)] == piece.text
    read = " ".join(p.text for p in selection.pieces)
    assert "leaves Pier 4 at 08:20" in read
    assert "It runs every day except public holidays." in read  # the neighbour
    assert selection.chars_selected <= budget_for(answer)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sizes=st.lists(st.integers(min_value=0, max_value=59), min_size=3, max_size=40),
    budget=st.integers(min_value=200, max_value=3000),
)
def test_pieces_always_map_back_and_never_exceed_the_budget_but_for_one_sentence(sizes, budget):
    context = [FILLER[n] for n in sizes] + [FACTS]
    selection = select_evidence(context, "A weekly pass costs €21 on the ferry.", None, budget)
    if selection is None:
        return
    longest = max(len(s) for s in FILLER + [FACTS])
    assert selection.chars_selected <= budget + longest
    starts = [(p.passage, p.start) for p in selection.pieces]
    assert starts == sorted(starts)  # in the context's order
    for piece in selection.pieces:
        assert context[piece.passage][piece.start : piece.start + len(piece.text)] == piece.text


def run(context, response, evidence):
    config = DetectionConfig(explain_embeddings=False, evidence=evidence)
    item = DetectionInput.build(context, response, "When does the ferry leave?")
    return verify(item, config, DETECTOR, classifier=RULES_ONLY)


def test_through_the_pipeline_a_contradiction_in_a_long_context_is_found_at_its_offsets():
    context = long_context()
    answer = "The ferry leaves Pier 4 at 09:20 and reaches Castle Quay at 08:55."
    result = run(context, answer, "selected")
    assert result.detected is True
    assert result.coverage.evidence_selected is True
    assert result.coverage.context_chars_given == sum(len(p) for p in context)
    assert result.coverage.context_chars_checked < result.coverage.context_chars_given / 4
    [wrong] = [s for s in result.spans if "09:20" in s.text]
    assert wrong.label == "contradiction"
    evidence = wrong.evidence
    assert evidence is not None
    assert evidence.passage_index == 1
    assert context[1][evidence.start : evidence.end] == evidence.text
    assert "08:20" in evidence.text
    whole = run(context, answer, "all")
    assert whole.coverage.evidence_selected is False
    assert whole.detected is True


def test_the_policy_chooses_what_the_detector_reads():
    assert detection_config(PolicyDocument(), 0.5).evidence == "all"
    assert detection_config(PolicyDocument(evidence="selected"), 0.5).evidence == "selected"
    with pytest.raises(ValueError, match="evidence"):
        DetectionConfig(evidence="some")
    with pytest.raises(ValueError, match="evidence"):
        PolicyDocument(evidence="some")
