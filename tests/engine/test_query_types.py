import pytest

from verification.engine.query_types import (
    QueryTypeClassifier,
    default_classifier,
    load_examples,
    rule_scores,
)
from verification.engine.types import QUERY_TYPES


def test_shipped_prototypes_cover_every_type():
    labels = {label for _, label in load_examples()}
    assert labels == set(QUERY_TYPES)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("According to the handbook, how many sick days do contractors get?", "factual_qa"),
        ("Summarize the attached report in three bullet points.", "summarization"),
        ("Write a paragraph from this table: city | population, Oslo | 700k", "data2text"),
        ("Write a haiku about winter mornings.", "creative"),
        ("Why does my Python script raise KeyError when reading the config?", "code"),
        ("In your opinion, is remote work better than the office?", "opinion"),
        ("Translate 'see you tomorrow' into Italian.", "other"),
    ],
)
def test_clear_queries_get_their_type(encoder, query, expected):
    label, confidence = default_classifier().classify(query)
    assert label == expected
    assert 0.0 < confidence <= 1.0


def test_missing_or_blank_query_is_other_with_zero_confidence():
    clf = QueryTypeClassifier(encoder=None)
    assert clf.classify(None) == ("other", 0.0)
    assert clf.classify("   ") == ("other", 0.0)


def test_rules_alone_classify_when_no_encoder_is_available():
    clf = QueryTypeClassifier(encoder=None)
    assert clf.classify("Please summarise this memo")[0] == "summarization"
    assert clf.classify("Write a limerick about cats")[0] == "creative"
    assert clf.classify("When did the store open?")[0] == "factual_qa"


def test_rule_scores_are_bounded_per_type():
    scores = rule_scores("Write a poem and a story and a song in Python")
    assert scores.max() <= 1.0 and scores.min() >= 0.0
    assert scores[QUERY_TYPES.index("creative")] == 1.0


@pytest.mark.slow
def test_fitting_is_deterministic_and_reproduces_the_shipped_weights(encoder):
    queries = ["What year did it open?", "Give me the gist of this email thread."]
    refit = QueryTypeClassifier(encoder, load_examples()).classify_batch(queries)
    shipped = default_classifier().classify_batch(queries)
    assert [label for label, _ in refit] == [label for label, _ in shipped]
    assert [c for _, c in refit] == pytest.approx([c for _, c in shipped], abs=1e-3)


def test_the_evaluation_set_is_large_balanced_and_disjoint_from_the_prototypes():
    from pathlib import Path

    eval_rows = load_examples(Path(__file__).parents[1] / "data" / "query_types.jsonl")
    assert len(eval_rows) >= 300
    counts = {t: sum(1 for _, label in eval_rows if label == t) for t in QUERY_TYPES}
    assert min(counts.values()) >= 40
    train = {text.casefold() for text, _ in load_examples()}
    assert not train & {text.casefold() for text, _ in eval_rows}
