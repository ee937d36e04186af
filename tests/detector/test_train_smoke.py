"""`python -m verification.engine.train --limit 16 --epochs 1` runs end to end."""

from __future__ import annotations

import json

import pytest

from verification.engine.detectors.embedded import EmbeddedDetector
from verification.engine.train.__main__ import main
from verification.engine.types import DetectionInput

from .conftest import DATA_DIR

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (DATA_DIR / "begin" / "dev.jsonl").exists(), reason="needs shared/data"),
]


def test_smoke_training_writes_loadable_weights(tmp_path):
    # when
    assert (
        main(
            ["--limit", "16", "--epochs", "1", "--out", str(tmp_path), "--data-dir", str(DATA_DIR)]
        )
        == 0
    )
    # then
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["examples"]["train"] > 0 and len(manifest["dev_metrics"]) == 1
    assert (tmp_path / "reference_predictions.json").is_file()
    detector = EmbeddedDetector(tmp_path, device="cpu")
    [pred] = detector.predict(
        [DetectionInput.build(["Paris is in France."], "Paris is in Spain.", None)]
    )
    assert pred.tokens and all(0.0 <= t.prob <= 1.0 for t in pred.tokens)
