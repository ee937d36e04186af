"""Training-data converters: span offsets land on the changed words, labels follow our
convention (1 = hallucinated), splits are deterministic. Small files written here, so the
tests need no shared/data."""

from __future__ import annotations

import json
from pathlib import Path

from engine.train.sources import docnli, halueval, structured, summedits, wice


def _summedits_dir(tmp_path: Path, rows: list[dict]) -> Path:
    folder = tmp_path / "summedits"
    folder.mkdir()
    for name in summedits.FILES:
        (tmp_path / name).write_text("[]")
    (tmp_path / summedits.FILES[0]).write_text(json.dumps(rows))
    return tmp_path


DOC = (
    "The council met on Monday. It approved a new bridge over the river. "
    "The bridge will cost 40 million euros. Work starts in spring."
)
ORIGINAL = "The council approved a bridge that will cost 40 million euros."


def test_summedits_marks_the_swapped_entity_and_inverts_the_label(tmp_path):
    rows = [
        {"id": "d1_e1", "doc": DOC, "original_summary": ORIGINAL, "split": "x",
         "summary": "The council approved a bridge that will cost 90 million euros.",
         "label": 0, "edit_types": "['entity_modification']"},
        {"id": "d1_e2", "doc": DOC, "original_summary": ORIGINAL, "split": "x",
         "summary": "The council approved a bridge that is going to cost 40 million euros.",
         "label": "1", "edit_types": "[]"},
    ]  # fmt: skip
    train, dev = summedits.load(_summedits_dir(tmp_path, rows), 13, 0)
    assert dev == []
    wrong, right = train
    assert wrong.label == 1
    assert [wrong.answer[s:e] for s, e, _ in wrong.spans] == ["90"]
    assert wrong.spans[0][2] == "entity_modification"
    assert right.label == 0  # a consistent edit is a faithful paraphrase
    assert right.spans == []


def test_summedits_marks_both_sides_of_a_deleted_negation():
    spans = summedits.edit_spans("The plan was approved.", "The plan was not approved.")
    assert [("The plan was approved."[s:e]) for s, e in spans] == ["was approved"]


def test_summedits_context_is_chosen_by_the_original_summary_only():
    ctx = summedits.select_context(DOC, ORIGINAL, limit=80)
    assert "40 million euros" in ctx
    assert "spring" not in ctx


def test_wice_spans_map_the_unsupported_tokens():
    claim = "Raza made his debut for Pakistan on 24 October 1996."
    tokens = ["Raza", "made", "his", "debut", "for", "Pakistan", "on", "24", "October", "1996", "."]
    flags = [False] * 6 + [True, True, True, True, False]
    assert [claim[s:e] for s, e in wice.token_spans(claim, tokens, flags)] == ["on 24 October 1996"]


def test_wice_keeps_the_file_split_and_uses_supporting_sentences(tmp_path):
    (tmp_path / "wice_tokens").mkdir()
    row = {"claim": "It opened in 1990.", "claim_tokens": ["It", "opened", "in", "1990", "."],
           "non_supported_spans": [False, False, False, True, False],
           "evidence": ["Intro.", "It opened in 1991.", "Unrelated.", "Far away."],
           "supporting_sentences": [[1]]}  # fmt: skip
    for name in wice.FILES:
        (tmp_path / name).write_text(json.dumps(row) + "\n")
    train, dev = wice.load(tmp_path, 13, 50)
    assert len(train) == len(dev) == 1
    assert train[0].passages == ["Intro. It opened in 1991. Unrelated."]
    assert [train[0].answer[s:e] for s, e, _ in train[0].spans] == ["1990"]


def test_structured_fakes_differ_from_their_faithful_twin_exactly_inside_the_span():
    train, dev = structured.load(Path("/nonexistent"), 13, 10)
    again, _ = structured.load(Path("/nonexistent"), 13, 10)
    assert [e.answer for e in train[:50]] == [e.answer for e in again[:50]]  # deterministic
    assert dev
    assert train
    faithful = {e.source_id: e.answer for e in train if not e.spans}
    fakes = [e for e in train[:600] if e.spans]
    assert {e.spans[0][2] for e in fakes} == {"value", "clause"}
    for ex in fakes:
        assert len(ex.spans) == 1
        s, e, kind = ex.spans[0]
        twin = faithful[ex.source_id]
        assert ex.answer[s:e]
        assert ex.answer[s:e].strip() == ex.answer[s:e]
        if kind == "clause":  # the faithful answer, then the added clause up to the full stop
            assert ex.answer.startswith(twin.rstrip("."))
            assert ex.answer[e:] == "."
            continue
        assert ex.answer[:s] == twin[:s]  # same text before the span
        tail = len(ex.answer) - e
        assert ex.answer[e:] == twin[len(twin) - tail :]  # and after it
        assert ex.answer != twin


def test_structured_faithful_answers_paraphrase_the_record():
    train, _ = structured.load(Path("/nonexistent"), 13, 10)
    faithful = [e for e in train if not e.spans and '"departure": "0' in e.passages[0]]
    assert faithful, "expected a flight record with a leading-zero time"
    assert all(e.label == 0 for e in faithful)


def test_halueval_emits_both_sides_of_length_matched_pairs(tmp_path):
    (tmp_path / "halueval").mkdir()
    qa = [
        {"knowledge": "Paris is the capital of France.", "question": "Capital of France?",
         "right_answer": "Paris is the capital.", "hallucinated_answer": "Lyon is the capital."},
        {"knowledge": "K.", "question": "Q?", "right_answer": "Paris",
         "hallucinated_answer": "It is the city of Lyon in the south of the country."},
    ]  # fmt: skip
    (tmp_path / "halueval/qa.jsonl").write_text("\n".join(json.dumps(r) for r in qa))
    (tmp_path / "halueval/dialogue.jsonl").write_text("")
    train, dev = halueval.load(tmp_path, 13, 0)
    assert [(e.answer, e.label) for e in train] == [
        ("Paris is the capital.", 0),
        ("Lyon is the capital.", 1),
    ]  # the length-mismatched pair is left out
    assert all(not e.token_labelled for e in train)


def test_docnli_labels_not_entailment_as_hallucinated(tmp_path):
    for name in docnli.FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(
            "entailment\tA cat sat.\tAn animal sat.\nnot_entailment\tA cat sat.\tA dog sat.\nbad line\n"
        )
    train, dev = docnli.load(tmp_path, 13, 0)
    assert len(train) == 8
    assert dev == []
    assert [e.response_label for e in train[:2]] == [0, 1]
