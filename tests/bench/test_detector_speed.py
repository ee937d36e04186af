"""bench/detector_speed.py end to end on a tiny locally built ModernBERT: structure only.

Timings are never asserted: they depend on the machine and on what else runs on it.
"""

from __future__ import annotations

import importlib.util
import json

import pytest

from bench.detector_speed import BenchConfig, run_benchmark
from tests.engine.detectors.conftest import DATA_DIR

pytestmark = pytest.mark.slow

DATA_FILE_BEGIN = DATA_DIR / "begin" / "dev.jsonl"

HAS_LETTUCEDETECT = importlib.util.find_spec("lettucedetect") is not None
TINY = {
    "hidden_size": 32,
    "num_hidden_layers": 3,
    "num_attention_heads": 2,
    "intermediate_size": 48,
    "max_position_embeddings": 1024,
}


@pytest.mark.skipif(not DATA_FILE_BEGIN.is_file(), reason="shared training data not present")
def test_it_reports_every_cell_ratio_and_the_embedded_target():
    # given
    systems = ["embedded", "ours", "ours-fp32"] + (["lettucedetect"] if HAS_LETTUCEDETECT else [])
    config = BenchConfig(
        device="cpu",
        n=[2],
        sizes=[64, 160],
        batch_size=2,
        answer_tokens=40,
        max_length=256,
        systems=systems,
        target_n=1,
        model_shape=TINY,
        data_file=DATA_FILE_BEGIN,
    )
    # when
    result = run_benchmark(config)
    # then
    cells = {(c["system"], c["context_tokens"], c["batch_size"]): c for c in result["cells"]}
    ran = {system for system, _, _ in cells}
    assert {"embedded", "ours"} <= ran
    for system in ran:
        for size in (64, 160):
            for batch in (1, 2):
                cell = cells[(system, size, batch)]
                assert cell["n"] == 2
                assert cell["examples_per_s"] > 0
                assert 0 < cell["p50_ms"] <= cell["p95_ms"]
                assert cell["batch_p50_ms"] > 0
    if HAS_LETTUCEDETECT:
        assert cells[("lettucedetect", 64, 2)]["reused_batch_1"]
        ratios = {(r["system"], r["context_tokens"], r["batch_size"]) for r in result["ratios"]}
        assert ("ours", 160, 2) in ratios
        assert all(r["ratio"] > 0 for r in result["ratios"])
    target = result["embedded_target"]
    assert (target["context_tokens"], target["answer_tokens"]) == (1024, 150)
    assert target["p50_ms"] > 0
    assert target["target_p50_ms"] == 50.0
    # the previously shipped model ran on the same inputs, once per round
    assert target["previous"]["n"] == config.rounds * config.target_n
    assert target["ratio_p50"] == pytest.approx(target["p50_ms"] / target["previous"]["p50_ms"])
    assert result["machine"]["threads"] == config.threads
    json.dumps(result)  # everything is JSON-able for --json
