"""TransformerDetector with a tiny random checkpoint: offsets, windows, coverage, batching."""

from __future__ import annotations

import pytest
import torch

from engine.detectors import transformer
from engine.detectors.base import Detector
from engine.detectors.transformer import (
    TransformerDetector,
    length_batches,
    resolve_dtype,
)
from engine.types import DetectionInput

PASSAGES = [
    f"Passage number {i} says that the river Alpha{i} flows north for {i * 10} kilometres. "
    f"It was mapped in {1800 + i} by a survey team."
    for i in range(12)
]


def test_it_implements_the_detector_protocol(tiny_detector):
    assert isinstance(tiny_detector, Detector)
    assert tiny_detector.languages == frozenset({"en"})


def test_offsets_point_at_answer_characters_only(tiny_detector):
    item = DetectionInput.build(["The sky is blue."], "The sky is green today.", "What colour?")
    [pred] = tiny_detector.predict([item])
    assert pred.tokens, "every answer word gets a probability"
    assert all(0 <= t.start < t.end <= len(item.response) for t in pred.tokens)
    assert "".join(item.response[t.start : t.end] for t in pred.tokens) == "Theskyisgreentoday."
    assert all(0.0 <= t.prob <= 1.0 for t in pred.tokens)
    assert pred.coverage.windows == 1
    assert pred.coverage.context_tokens_checked == pred.coverage.context_tokens_given > 0
    assert pred.detector_tokens > pred.coverage.answer_tokens_checked


def test_long_context_is_split_into_windows_and_fully_checked(tiny_detector):
    item = DetectionInput.build(PASSAGES, "The river flows north.", "Where does it flow?")
    [pred] = tiny_detector.predict([item])
    cov = pred.coverage
    assert cov.windows > 1
    assert cov.context_tokens_checked == cov.context_tokens_given
    assert cov.context_chars_checked == cov.context_chars_given
    assert not cov.context_truncated
    assert not cov.answer_truncated


def test_token_probability_is_the_minimum_over_windows(tiny_detector):
    # given
    scorer = tiny_detector._scorer
    item = DetectionInput.build(PASSAGES, "The river flows north for 50 kilometres.", "Where?")
    plan = scorer.plan(item)
    assert len(plan.prompts) > 1
    # when: each window alone
    per_window = []
    for prompt in plan.prompts:
        job = scorer._encode(0, prompt, plan.answer, plan.coverage)
        [probs], _ = scorer._run([job])
        per_window.append(dict(zip(job.answer_offsets, probs, strict=True)))
    [pred] = tiny_detector.predict([item])
    # then
    for tok in pred.tokens:
        expected = min(w[(tok.start, tok.end)] for w in per_window)
        assert tok.prob == pytest.approx(expected, abs=1e-5)


def test_an_answer_longer_than_the_window_is_truncated_and_flagged(tiny_detector):
    answer = " ".join(f"claim{i}" for i in range(200))
    [pred] = tiny_detector.predict([DetectionInput.build(["short context"], answer, "q?")])
    cov = pred.coverage
    assert cov.answer_truncated
    assert 0 < cov.answer_tokens_checked < cov.answer_tokens_given
    assert max(t.end for t in pred.tokens) < len(answer)
    # the scored prefix ends where the last scored token does (the dashboard marks the rest)
    assert cov.answer_chars_checked == max(t.end for t in pred.tokens)


def test_windows_beyond_the_cap_are_dropped_and_flagged(tiny_model_dir):
    detector = TransformerDetector(tiny_model_dir, device="cpu", max_length=192, max_windows=1)
    [pred] = detector.predict([DetectionInput.build(PASSAGES, "The river flows north.", "q?")])
    assert pred.coverage.windows == 1
    assert pred.coverage.context_truncated
    assert pred.coverage.context_tokens_checked < pred.coverage.context_tokens_given


def test_batched_results_equal_single_results(tiny_detector):
    items = [
        DetectionInput.build(PASSAGES, "The river flows south.", "Where?"),
        DetectionInput.build(["Cats sleep a lot."], "Cats sleep twenty hours a day.", None),
        DetectionInput.build([], "No context at all here.", "q?"),
    ]
    batched = tiny_detector.predict(items)
    for item, pred in zip(items, batched, strict=True):
        [single] = tiny_detector.predict([item])
        assert [(t.start, t.end) for t in pred.tokens] == [(t.start, t.end) for t in single.tokens]
        assert [t.prob for t in pred.tokens] == pytest.approx(
            [t.prob for t in single.tokens], abs=1e-5
        )
        assert pred.coverage == single.coverage
        assert pred.detector_tokens == single.detector_tokens


def test_empty_context_and_empty_answer_do_not_raise(tiny_detector):
    no_context, no_answer = tiny_detector.predict(
        [DetectionInput.build(None, "Something.", None), DetectionInput.build(["ctx"], "", None)]
    )
    assert no_context.tokens
    assert no_context.coverage.context_tokens_given == 0
    assert no_answer.tokens == []
    assert no_answer.detector_tokens == 0


def test_a_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="model folder not found"):
        TransformerDetector(tmp_path / "nope")


def test_windows_of_very_different_lengths_are_not_padded_together():
    # given: two long windows, two short ones, a batch size that would hold all four
    lengths = [4000, 700, 3900, 720]
    # when
    batches = length_batches(lengths, batch_size=16)
    # then: shortest first, similar lengths share a batch
    assert batches == [[1, 3], [2, 0]]


def test_long_windows_run_alone_under_a_token_budget():
    batches = length_batches([3900, 3910, 500, 510, 520], batch_size=8, max_tokens=4096)
    assert batches == [[2, 3, 4], [0], [1]]


def test_a_batch_never_exceeds_the_batch_size():
    batches = length_batches([100] * 10, batch_size=4)
    assert [len(b) for b in batches] == [4, 4, 2]
    assert sorted(i for b in batches for i in b) == list(range(10))


@pytest.mark.parametrize(("native", "expected"), [(True, "bfloat16"), (False, "float32")])
def test_cpu_runs_bf16_only_where_the_cpu_has_bf16_units(monkeypatch, native, expected):
    monkeypatch.setattr(transformer, "cpu_has_native_bf16", lambda: native)
    assert resolve_dtype(torch.device("cpu"), None) == getattr(torch, expected)
    assert resolve_dtype(torch.device("cpu"), "float32") == torch.float32
