"""`python -m engine.train` at a tiny scale runs end to end and writes a
loadable model. One stage only: the second loads every token-labelled source (tens of MB
of JSON), which is slow on a shared CI machine; stage chaining, skipping and resuming are
tested on a tiny model in `test_train_stages.py`."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine.detectors.embedded import EmbeddedDetector
from engine.types import DetectionInput
from tests.engine.detectors.conftest import DATA_DIR

pytestmark = [
    pytest.mark.slow,
    # Real MiniLM training + dev scoring + reference predictions: about a minute alone, but
    # several on a CI machine shared with other work (it hit the 300 s default there once).
    pytest.mark.timeout(1200),
    pytest.mark.skipif(not (DATA_DIR / "begin" / "dev.jsonl").exists(), reason="needs shared/data"),
]


def test_smoke_training_writes_loadable_weights(tmp_path):
    # when: the command as a user runs it, in its own process
    subprocess.run(
        [sys.executable, "-m", "engine.train", "--stages", "entail",
         "--scale", "0.002", "--epochs", "1", "--out", str(tmp_path / "model"),
         "--work", str(tmp_path / "work"), "--data-dir", str(DATA_DIR)],
        check=True, timeout=1100,
    )  # fmt: skip
    # then
    tmp_path = tmp_path / "model"
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert [s["name"] for s in manifest["stages"]] == ["entail"]
    assert all(s["examples"]["train"] > 0 and len(s["history"]) == 1 for s in manifest["stages"])
    assert manifest["pair_head"]
    assert manifest["frozen_layers"] == 0
    assert (tmp_path / "reference_predictions.json").is_file()
    detector = EmbeddedDetector(tmp_path, device="cpu")
    [pred] = detector.predict(
        [DetectionInput.build(["Paris is in France."], "Paris is in Spain.", None)]
    )
    assert pred.tokens
    assert all(0.0 <= t.prob <= 1.0 for t in pred.tokens)
    assert pred.pair_prob is not None
    assert 0.0 <= pred.pair_prob <= 1.0
