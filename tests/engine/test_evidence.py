from engine.explain.evidence import EvidenceIndex


def test_each_query_gets_its_best_sentence_with_passage_offsets(eiffel):
    index = EvidenceIndex(eiffel.context)

    tall, opened = index.best_many(
        [("It is 500 metres tall.", "500"), ("It opened in May 1889.", "May")]
    )

    assert tall is not None
    assert tall.text == "It is 330 metres tall."
    assert opened is not None
    assert opened.text == "It opened to the public in March 1889."
    for ev in (tall, opened):
        assert eiffel.context[ev.passage_index][ev.start : ev.end] == ev.text
        assert 0.0 < ev.similarity <= 1.0


def test_allowed_limits_the_candidates_and_none_means_nothing_qualified(eiffel):
    index = EvidenceIndex(eiffel.context)

    [gold] = index.best_many([("It is 500 metres tall.", "")], allowed=lambda t: "gold" in t)
    [nothing] = index.best_many([("It is 500 metres tall.", "")], allowed=lambda t: False)

    assert gold is not None
    assert gold.text == "The tower was not painted gold."
    assert nothing is None


def test_an_empty_context_has_no_evidence():
    assert EvidenceIndex([]).best_many([("Paris is big.", "Paris")]) == [None]
