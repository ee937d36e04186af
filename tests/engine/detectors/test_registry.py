"""load_detector: specs, per-process caching and clear errors."""

from __future__ import annotations

import json

import pytest

from engine.detectors import registry
from engine.detectors.embedded import DEFAULT_MODEL_DIR
from engine.detectors.lexical import LexicalDetector
from engine.detectors.transformer import TransformerDetector


@pytest.fixture(autouse=True)
def _fresh_cache():
    registry.clear_cache()
    yield
    registry.clear_cache()


def test_a_model_folder_loads_once_per_process(tiny_model_dir):
    first = registry.load_detector(str(tiny_model_dir))
    assert isinstance(first, TransformerDetector)
    assert registry.load_detector(f"hf:{tiny_model_dir}") is first
    assert registry.load_detector(str(tiny_model_dir) + "/") is first


def test_the_default_spec_is_the_minilm_lexical_ensemble_and_is_cached():
    detector = registry.load_detector()
    # bf16 on a CPU with bf16 units, float32 elsewhere (test below); the name says which
    suffix = "-bf16" if registry.embedded_dtype(None) == "bfloat16" else ""
    assert detector.name == f"embedded-minilm{suffix}+lexical"
    assert registry.load_detector("embedded") is detector
    # its parts are the same cached instances as their own specs
    assert detector.model is registry.load_detector("minilm")
    assert detector.lexical is registry.load_detector("lexical")


def test_an_unknown_spec_or_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(registry.UnknownDetectorError, match="unknown detector"):
        registry.load_detector("no-such-detector")
    with pytest.raises(registry.UnknownDetectorError, match="expected 'embedded'"):
        registry.load_detector(f"hf:{tmp_path / 'missing'}")


def test_lexical_spec_loads_the_lexical_detector():
    detector = registry.load_detector("lexical")
    assert isinstance(detector, LexicalDetector)
    assert registry.load_detector("lexical") is detector


def test_a_mounted_checkpoint_runs_at_the_configured_precision(tiny_model_dir):
    import torch

    full = registry.load_detector(str(tiny_model_dir), dtype="float32")
    half = registry.load_detector(str(tiny_model_dir), dtype="bfloat16")
    assert full is not half
    assert registry.load_detector(str(tiny_model_dir), "float32") is full
    assert next(full._scorer.model.parameters()).dtype == torch.float32
    assert next(half._scorer.model.parameters()).dtype == torch.bfloat16
    # "auto" and None are the same detector; the lexical one has no model to set
    assert registry.load_detector(str(tiny_model_dir), "auto") is registry.load_detector(
        str(tiny_model_dir)
    )
    assert registry.load_detector("lexical", "bfloat16") is registry.load_detector("lexical")


def test_an_unknown_precision_is_a_clear_error(tiny_model_dir):
    with pytest.raises(ValueError, match="dtype must be one of"):
        registry.load_detector(str(tiny_model_dir), dtype="int4")


def test_a_folder_written_by_the_training_command_loads_as_the_default_does():
    from pathlib import Path

    from engine.detectors.registry import load_detector

    folder = Path(__file__).resolve().parents[3] / "bench" / "models" / "embedded_v2"
    detector = load_detector(str(folder))
    # float32 under "auto" on every machine: bf16 was measured on the shipped model only
    assert detector.name == "embedded-minilm+lexical"
    assert detector.head is not None
    assert load_detector(str(folder), "bfloat16").name == "embedded-minilm-bf16+lexical"
    # the GPU-trained candidate's head uses the shipped default's recipe, so the two compare
    shipped = json.loads((DEFAULT_MODEL_DIR / "response_head.json").read_text())
    assert list(detector.head.features) == shipped["features"]


def test_int8_quantizes_the_shipped_model_and_keeps_its_verdicts_close():
    import torch

    from engine.types import DetectionInput

    full = registry.load_detector("embedded", dtype="float32")
    small = registry.load_detector("embedded", dtype="int8")
    assert small is not full
    assert small.name == "embedded-minilm-int8+lexical"  # results say which arithmetic scored
    assert registry.load_detector("embedded", "int8") is small
    assert small.lexical is registry.load_detector("lexical")  # nothing to quantize there
    kinds = [type(m).__module__ for m in small.model._scorer.model.modules()]
    assert "torch.nn.modules.linear" not in kinds  # every linear layer is quantized
    assert any(kind.startswith("torch.ao.nn.quantized.dynamic") for kind in kinds)
    assert next(full.model._scorer.model.parameters()).dtype == torch.float32
    item = DetectionInput.build(
        ["The Eiffel Tower is 330 metres tall and was completed in 1889."],
        "The Eiffel Tower is 330 metres tall and was completed in 1950.",
        "How tall is the Eiffel Tower?",
    )
    [a], [b] = full.predict([item]), small.predict([item])
    assert [(t.start, t.end) for t in a.tokens] == [(t.start, t.end) for t in b.tokens]
    assert max(abs(x.prob - y.prob) for x, y in zip(a.tokens, b.tokens, strict=True)) < 0.5
    assert (a.response_prob >= 0.5) == (b.response_prob >= 0.5)


@pytest.mark.parametrize(
    ("device", "native", "expected"),
    [("cpu", True, "bfloat16"), ("cpu", False, "float32"), ("cuda", True, "float32")],
)
def test_auto_runs_the_embedded_detector_in_bf16_only_on_a_cpu_with_bf16_units(
    monkeypatch, device, native, expected
):
    import torch

    from engine.detectors import transformer

    monkeypatch.setattr(transformer, "cpu_has_native_bf16", lambda: native)
    monkeypatch.setattr(transformer, "resolve_device", lambda _: torch.device(device))
    assert registry.embedded_dtype(None) == registry.embedded_dtype("auto") == expected
    # asked for, it is what it is asked for; float16 is not offered: float32
    assert registry.embedded_dtype("bfloat16") == "bfloat16"
    assert registry.embedded_dtype("int8") == "int8"
    assert registry.embedded_dtype("float32") == registry.embedded_dtype("float16") == "float32"


def test_bfloat16_loads_the_shipped_model_once_and_names_its_arithmetic():
    import torch

    half = registry.load_detector("embedded", dtype="bfloat16")
    assert half.name == "embedded-minilm-bf16+lexical"  # results say which arithmetic scored
    assert registry.load_detector("minilm", "bfloat16") is half.model
    assert half.lexical is registry.load_detector("lexical")
    full = registry.load_detector("embedded", dtype="float32")
    assert full is not half
    assert full.name == "embedded-minilm+lexical"
    assert registry.load_detector("embedded", "float16") is full  # not offered: float32
    auto = registry.load_detector("embedded", "auto")
    assert auto is (half if registry.embedded_dtype("auto") == "bfloat16" else full)
    query = half.model._scorer.model.bert.encoder.layer[0].layer.attention.self.query
    assert query.weight.dtype == torch.bfloat16


def test_int8_is_refused_for_a_checkpoint_it_does_not_apply_to(tiny_model_dir):
    with pytest.raises(ValueError, match="int8 applies to the embedded detector"):
        registry.load_detector(str(tiny_model_dir), dtype="int8")


def test_the_detector_table_lists_each_spec_and_its_loader_builds_it():
    assert list(registry.DETECTORS)[0] == registry.DEFAULT_SPEC
    assert {"embedded", "minilm", "lexical"} <= set(registry.DETECTORS)
    assert registry.FOLDER_KINDS[-1].name == "hf"  # a checkpoint: whatever no other kind took
    lexical = registry.DETECTORS["lexical"]
    assert isinstance(lexical.load(None), LexicalDetector)
    assert lexical.precision == "none"
    with pytest.raises(registry.UnknownDetectorError, match="expected 'embedded', 'minilm'"):
        registry.load_detector("no-such-detector")
