"""bench/kb_trial.py: the cases file is checked, the tally counts what it says, and a
run verifies against the knowledge base it indexes (lexical detector, tiny corpus)."""

from __future__ import annotations

import json

import pytest

from bench.kb_trial import load, main, tally

DOCS = [
    {
        "id": "d1",
        "title": "Parking permits",
        "text": "A resident parking permit costs £45 a year. Permits are issued within 10 "
        "working days. Visitor permits are not refundable.",
    },
    {
        "id": "d2",
        "title": "Bulky waste",
        "text": "Bulky waste collections cost £30 for up to three items and take place on "
        "Thursdays. Fridges are collected by the recycling team.",
    },
]


def _case(cid, doc, response, wrong=None, kind="paraphrase"):
    spans = []
    if wrong:
        start = response.index(wrong)
        spans = [{"start": start, "end": start + len(wrong), "text": wrong}]
    return {
        "id": cid, "doc": doc, "query": "?", "response": response,
        "label": int(bool(wrong)), "kind": kind, "spans": spans,
    }  # fmt: skip


CASES = [
    _case("t1", "d1", "A resident parking permit costs £45 a year."),
    _case("t2", "d1", "A resident parking permit costs £65 a year.", "£65", "value"),
    _case("t3", "d2", "Bulky waste collections take place on Thursdays."),
    _case("t4", "d2", "Bulky waste collections take place on Mondays.", "Mondays", "time"),
]


def _write(tmp_path, cases=CASES):
    path = tmp_path / "kb_trial_t.json"
    path.write_text(json.dumps({"documents": DOCS, "cases": cases}))
    return path


def test_a_span_that_does_not_match_its_response_is_refused(tmp_path):
    bad = [dict(CASES[1], spans=[{"start": 0, "end": 3, "text": "£65"}])]
    with pytest.raises(ValueError, match="does not match"):
        load(_write(tmp_path, bad))
    with pytest.raises(ValueError, match="unknown document"):
        load(_write(tmp_path, [dict(CASES[0], doc="d9")]))
    documents, cases = load(_write(tmp_path))
    assert documents["d1"].startswith("Parking permits\n\n")
    assert len(cases) == 4


def test_the_tally_counts_catches_passes_and_kinds():
    out = tally(CASES, [False, True, True, False])
    assert out["wrong_caught"] == "1/2"
    assert out["faithful_passed"] == "1/2"
    assert out["recall_by_kind"] == {"time": "0/1", "value": "1/1"}
    assert out["misclassified"] == ["t3", "t4"]


@pytest.mark.django_db(transaction=True)
def test_a_run_verifies_each_answer_against_the_indexed_documents(tmp_path, capsys):
    assert main(["--cases", str(_write(tmp_path)), "--detector", "lexical", "--json",
                 str(tmp_path / "out.json")]) == 0  # fmt: skip
    result = json.loads((tmp_path / "out.json").read_text())
    assert result["documents"] == 2
    assert result["claims"] >= 4
    assert result["claims_with_evidence"] >= 2
    kb = result["knowledge_base"]
    # the wrong price and the wrong weekday are caught, against the retrieved passages
    assert kb["wrong_caught"] == "2/2"
    assert result["own_document_given"]["wrong_caught"] == "2/2"
