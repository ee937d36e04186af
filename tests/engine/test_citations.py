from engine.scoring.citations import CitationPolicy, check_citations, parse_marker
from engine.types import DetectionInput

LONG_1 = "The tower was completed in 1889 for the fair held in Paris"
LONG_2 = "It is three hundred and thirty metres tall and made of wrought iron"


def report(response, passages=("a", "b"), ids=None, policy=None):
    return check_citations(DetectionInput.build(list(passages), response, passage_ids=ids), policy)


def test_valid_citations_carry_no_risk():
    r = report(f"{LONG_1} [1]. {LONG_2} [1, 2].")
    assert r.applicable
    assert r.markers == 2
    assert r.invalid == []
    assert r.risk == 0.0
    assert r.citation_ratio == 1.0


def test_citations_to_missing_passages_are_invalid_and_risky():
    r = report(f"{LONG_1} [1]. {LONG_2} [3].")
    assert r.invalid == ["3"]
    assert r.risk >= 0.5


def test_named_passage_ids_are_honoured():
    assert report(f"{LONG_1} [doc-a].", ids=["doc-a", "doc-b"]).invalid == []
    assert report(f"{LONG_1} [doc-c].", ids=["doc-a", "doc-b"]).invalid == ["doc-c"]


def test_uncited_long_sentences_are_listed_with_answer_offsets():
    text = f"{LONG_1} [1]. {LONG_2}. Short one."
    r = report(text)
    assert len(r.uncited_sentences) == 1
    start, end = r.uncited_sentences[0]
    assert text[start:end].startswith("It is three hundred")
    assert r.citation_ratio == 0.5
    assert 0.0 < r.risk < 0.5


def test_min_words_is_configurable():
    text = f"{LONG_1} [1]. Short but uncited sentence here."
    assert report(text).uncited_sentences == []
    assert len(report(text, policy=CitationPolicy(min_words=3)).uncited_sentences) == 1


def test_not_applicable_without_markers_unless_policy_requires():
    assert not report(f"{LONG_1}.").applicable
    required = report(f"{LONG_1}.", policy=CitationPolicy(require_citations=True))
    assert required.applicable
    assert required.citation_ratio == 0.0
    assert required.risk == 0.5


def test_brackets_that_are_not_citations_are_ignored():
    r = report(f"{LONG_1} [sic], see [the docs](http://x) and [citation needed].")
    assert r.markers == 0
    assert not r.applicable
    assert parse_marker("1, 2; 3") == ["1", "2", "3"]
    assert parse_marker("Source 2", {"2"}) == ["2"]
    assert parse_marker("edit") is None
