"""Fine-tuning on customer-style development cases (issue 20): cases become token-labelled
examples whose labels fall on the marked span only, the sets kept for measuring are refused,
and a fine-tuned folder loads like any detector folder, its model moved from its source's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.detectors.embedded import DEFAULT_MODEL_DIR, load_model
from engine.detectors.registry import load_detector
from engine.train import customer
from engine.train.encode import IGNORE, encode_examples
from engine.train.loop import predict_rows

from .test_train_stages import tokenizer  # noqa: F401  (fixture)


def _write_set(folder: Path, name: str, n: int = 6) -> None:
    rows = []
    for i in range(n):
        wrong = i % 2 == 1
        hours = 10 if wrong else 9
        response = f"The museum opens at {hours} am every day."
        start = response.index(str(hours))
        spans = [{"start": start, "end": start + 2, "text": "10", "type": "value"}] if wrong else []
        rows.append(
            {
                "id": f"{name}{i:03d}",
                "task": "qa",
                "context": ["The museum opens at 9 am and closes at 5 pm."],
                "query": "When does the museum open?",
                "response": response,
                "label": int(wrong),
                "spans": spans,
                "kind": "value" if wrong else "paraphrase",
            }
        )
    (folder / customer.case_file(name, folder).name).write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
    )


def test_cases_become_examples_labelled_on_their_span_only(tokenizer, tmp_path: Path):  # noqa: F811
    # given
    _write_set(tmp_path, "g")
    # when
    rows = customer.load_examples(["g"], tmp_path)
    encoded, dropped = encode_examples(rows, tokenizer, 128)
    # then
    assert dropped == 0
    assert [r.label for r in rows] == [0, 1, 0, 1, 0, 1]
    faithful, wrong = encoded[0], encoded[1]
    assert set(faithful.labels) - {IGNORE} == {0}
    positives = [k for k, lab in enumerate(wrong.labels) if lab == 1]
    assert positives, "the wrong value's tokens are labelled"
    assert len(positives) < sum(lab != IGNORE for lab in wrong.labels)  # not the whole answer


def test_sets_kept_for_measuring_are_refused(tmp_path: Path):
    _write_set(tmp_path, "zm")
    with pytest.raises(ValueError, match="held out"):
        customer.load_examples(["g", "zm"], tmp_path)


def test_a_fine_tuned_folder_loads_and_its_model_moved(tokenizer, tmp_path: Path, monkeypatch):  # noqa: F811
    # given: a tiny set, trained for a few steps from the shipped default
    _write_set(tmp_path, "g", n=8)
    monkeypatch.setattr(customer, "CASES_DIR", tmp_path)
    out = tmp_path / "model"
    encoded, _ = encode_examples(customer.load_examples(["g"]), tokenizer, 128)
    source, _ = load_model(DEFAULT_MODEL_DIR, tokenizer)
    # when
    manifest = customer.fine_tune(
        DEFAULT_MODEL_DIR, out, ["g"], epochs=2, lr=1e-3, max_length=128, log=lambda _: None
    )
    tuned, tuned_manifest = load_model(out, tokenizer)
    # then: the folder loads through the registry's path, says what it saw, keeps the head
    assert manifest["fine_tuned"]["customer_sets"] == ["g"]
    assert tuned_manifest["fine_tuned"]["examples"] == 8
    assert (out / "response_head.json").is_file()
    assert load_detector(str(out)).name
    assert not (tmp_path / "model.work").exists()
    # and the wrong value's token probability moved
    wrong = encoded[1]
    before = predict_rows(source, [wrong])[0][2]
    after = predict_rows(tuned, [wrong])[0][2]
    assert max(abs(a - b) for a, b in zip(after, before, strict=True)) > 1e-3
