import pytest

from engine.explain.labels import explain_spans
from engine.types import DetectionInput, Span


def flag(context, response, fragment, encoder=None):
    start = response.index(fragment)
    span = Span(start, start + len(fragment), fragment, 0.9)
    return explain_spans(DetectionInput.build(context, response), [span], encoder)


def test_a_wrong_year_is_a_contradiction_with_its_evidence(eiffel):
    [span] = flag(eiffel.context, "The Eiffel Tower was built in 1950.", "1950")
    assert span.label == "contradiction"
    assert "1950" in span.reason
    assert "1889" in span.reason
    assert span.evidence is not None
    assert "1887 to 1889" in span.evidence.text


def test_a_wrong_month_is_a_date_contradiction(eiffel):
    [span] = flag(eiffel.context, "It opened to the public in May 1889.", "May")
    assert span.label == "contradiction"
    assert "March" in span.reason


def test_a_wrong_unit_is_a_contradiction(eiffel):
    [span] = flag(eiffel.context, "It is 330 feet tall.", "feet")
    assert span.label == "contradiction"
    assert "unit" in span.reason


def test_a_wrong_quantity_is_a_contradiction():
    [span] = flag(["The company has 250 employees."], "The company has 400 employees.", "400")
    assert span.label == "contradiction"


def test_a_negation_flip_is_a_contradiction(eiffel):
    [span] = flag(eiffel.context, "The tower was painted gold.", "painted gold")
    assert span.label == "contradiction"
    assert "negation" in span.reason


def test_a_different_name_in_the_same_slot_is_a_contradiction(eiffel):
    [span] = flag(eiffel.context, "It opened to the public in March 1889 in Lyon.", "Lyon")
    assert span.label == "unsupported"  # the context names no other city in that sentence
    [span] = flag(eiffel.context, "The company of Gustave Dumas designed it.", "Dumas")
    assert span.label == "contradiction"
    assert "Eiffel" in span.reason


def test_verbatim_content_is_dropped_as_entailed(eiffel):
    assert flag(eiffel.context, "It is 330 metres tall.", "330 metres tall") == []
    assert flag(eiffel.context, "Gustave Eiffel's company designed it.", "designed") == []


def test_content_absent_from_the_context_is_unsupported_with_a_reason(eiffel):
    [span] = flag(eiffel.context, "The tower is made of chocolate.", "chocolate")
    assert span.label == "unsupported"
    assert "chocolate" in span.reason


def test_evidence_offsets_point_into_their_passage_and_span_offsets_into_the_answer(eiffel):
    response = "Built in 1950, it is tall."
    [span] = flag(eiffel.context, response, "1950")
    ev = span.evidence
    assert ev is not None
    assert eiffel.context[ev.passage_index][ev.start : ev.end] == ev.text
    assert response[span.start : span.end] == "1950"
    assert 0.0 <= ev.similarity <= 1.0


def test_evidence_is_found_in_the_right_passage(eiffel):
    [span] = flag(eiffel.context, "It opened to the public in June 1889.", "June")
    assert span.evidence is not None
    assert span.evidence.passage_index == 1


def test_empty_span_list_needs_no_context():
    assert explain_spans(DetectionInput.build([], "x"), []) == []


def test_no_context_leaves_a_span_unsupported_without_evidence():
    [span] = flag([], "Paris is big.", "Paris")
    assert span.label == "unsupported"
    assert span.evidence is None


@pytest.mark.slow
def test_embeddings_rescue_a_paraphrase_with_few_shared_words(encoder):
    context = [
        "Quarterly revenue rose sharply. The firm's headcount grew to 250 people. "
        "Its headquarters moved to Denver."
    ]
    [span] = flag(context, "The staff grew to 400 people.", "400", encoder)
    assert span.label == "contradiction"
    assert span.evidence is not None
    assert "headcount" in span.evidence.text


def test_affirming_what_the_context_negates_is_a_contradiction_even_when_words_match(eiffel):
    [span] = flag(eiffel.context, "The tower was gold.", "gold")
    assert span.label == "contradiction"
    assert "negation" in span.reason


TOOL_RESULT = [
    "Eiffel Tower: wrought-iron lattice tower on the Champ de Mars in Paris. "
    "Construction: 1887-1889, for the 1889 World's Fair. Height: 330 m."
]


def test_a_wrong_year_is_checked_against_the_sentence_that_states_a_year():
    # The answer sentence matches the name sentence best; the year lives elsewhere.
    [span] = flag(TOOL_RESULT, "The Eiffel Tower was built in 1950 and is tall.", "1950")
    assert span.label == "contradiction"
    assert "1887" in span.reason
    assert span.evidence is not None
    assert span.evidence.text.startswith("Construction")


def test_a_wrong_length_is_checked_against_the_sentence_with_a_length():
    [span] = flag(TOOL_RESULT, "The Eiffel Tower is 500 metres tall.", "500 metres")
    assert span.label == "contradiction"
    assert "330" in span.reason
    assert span.evidence is not None
    assert span.evidence.text == "Height: 330 m."


def test_a_bare_count_is_not_matched_to_an_unrelated_number():
    # No year, no unit: nothing tells which context number it should be compared with.
    [span] = flag(TOOL_RESULT, "The Eiffel Tower has 3 restaurants.", "3")
    assert span.label == "unsupported"


class CountingEncoder:
    """Every text it is asked to encode, in order; vectors from a fixed hash."""

    def __init__(self):
        self.encoded: list[str] = []

    def encode(self, texts):
        import numpy as np

        self.encoded.extend(texts)
        rows = [np.random.default_rng(sum(map(ord, t))).standard_normal(8) for t in texts]
        return np.array([r / np.linalg.norm(r) for r in rows], dtype=np.float32)


def test_the_typed_look_up_encodes_no_text_twice():
    encoder = CountingEncoder()
    response = "The Eiffel Tower was built in 1950 and is tall."
    [span] = flag(TOOL_RESULT, response, "1950", encoder)
    assert span.label == "contradiction"
    assert "1887" in span.reason
    assert encoder.encoded.count(response) == 1
    assert len(encoder.encoded) == len(set(encoder.encoded))
