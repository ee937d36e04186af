"""`load_detector(spec)`: the one place that turns a detector spec into a loaded model.

Specs:
    "embedded"              the default: the shipped MiniLM detector averaged with
                            lexical grounding (see `ensemble.py` for why), with the
                            response head that scores whole answers
    "minilm"                the shipped MiniLM token classifier alone
    "lexical"               the lexical-grounding detector alone (no model)
    "hf:/path/to/folder"    a Hugging Face token-classification checkpoint, or a folder
                            written by `python -m engine.train` (its
                            manifest names the embedded model), which loads as the
                            default does: that model + lexical + its response head
                            (in float32 under "auto": `embedded_dtype`)
    "/path/to/folder"       the same, without the prefix

The service passes `TRUTHLENS_DETECTOR` and `TRUTHLENS_DETECTOR_DTYPE`
(`verification.tenant_config.service_detector`).

Loading a model takes seconds and hundreds of MB, so each spec is loaded
once per process and the same instance is returned afterwards (workers
call this per job).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from .base import Detector

DEFAULT_SPEC = "embedded"

_cache: dict[tuple[str, str | None], Detector] = {}
_lock = threading.RLock()  # re-entrant: "embedded" loads "minilm" and "lexical"


class UnknownDetectorError(ValueError):
    """The spec names no known detector and no existing model folder."""


def _normalise(spec: str) -> str:
    spec = (spec or DEFAULT_SPEC).strip()
    if spec in ("embedded", "minilm", "lexical"):
        return spec
    path = spec[3:] if spec.startswith("hf:") else spec
    return "hf:" + str(Path(path).expanduser().resolve())


def _build(key: str, dtype: str | None) -> Detector:
    # Each detector is imported only when it is chosen: the model-backed ones load
    # torch and transformers, which a lexical-only process never needs.
    if key == "embedded":
        from .ensemble import shipped_ensemble

        return shipped_ensemble(load_detector("minilm", dtype), load_detector("lexical"))
    if key == "minilm":
        from .embedded import EmbeddedDetector

        return EmbeddedDetector(dtype=embedded_dtype(dtype))
    if key == "lexical":
        from .lexical import LexicalDetector

        return LexicalDetector()
    path = Path(key[3:])
    if not path.is_dir():
        raise UnknownDetectorError(
            f"unknown detector {key[3:]!r}: expected 'embedded', 'minilm', 'lexical', "
            "'hf:<folder>' or an existing model folder"
        )
    if _is_embedded_folder(path):
        from .embedded import EmbeddedDetector
        from .ensemble import shipped_ensemble

        # "auto" is float32 here: bf16's accuracy was measured on the shipped model only
        arithmetic = embedded_dtype(dtype) if dtype not in (None, "auto") else "float32"
        return shipped_ensemble(
            EmbeddedDetector(path, dtype=arithmetic), load_detector("lexical"), path
        )
    if dtype == "int8":
        raise ValueError("int8 applies to the embedded detector and its retrained folders")
    from .transformer import TransformerDetector

    return TransformerDetector(path, dtype=dtype)


def _is_embedded_folder(path: Path) -> bool:
    from .embedded import MANIFEST_FILE, NAME  # see load_detector

    manifest = path / MANIFEST_FILE
    if not manifest.is_file():
        return False
    try:
        return json.loads(manifest.read_text(encoding="utf-8")).get("name") == NAME
    except (OSError, ValueError):
        return False


DTYPES = ("auto", "float32", "bfloat16", "float16", "int8")


def embedded_dtype(dtype: str | None) -> str:
    """The arithmetic the shipped embedded detector runs in for `dtype`.

    "int8" and "bfloat16" as asked; "float32", and "float16" (which it does not offer),
    give float32. "auto"/None: bfloat16 where the model runs on a CPU with bf16 matrix
    units (AMX or AVX512-BF16), float32 elsewhere (on a GPU, and on CPUs that would
    emulate bf16 and run slower). bfloat16 held the shipped model's accuracy on every
    evaluation file and customer-style development set (AUROC within 0.0023) with 1.3-2.2x
    less detector time on one thread (docs/benchmarks.md "Cost that grows with the answer"); a
    retrained folder runs "auto" in float32 until its own bf16 accuracy is measured (`_build`).
    """
    if dtype in ("int8", "bfloat16"):
        return dtype
    if dtype in (None, "auto"):
        from .transformer import cpu_has_native_bf16, resolve_device  # loads torch

        if resolve_device(None).type == "cpu" and cpu_has_native_bf16():
            return "bfloat16"
    return "float32"


def load_detector(spec: str = DEFAULT_SPEC, dtype: str | None = None) -> Detector:
    """The detector for `spec`, loaded on first use and cached for the process.

    `dtype` sets the precision of a mounted checkpoint ("auto"/None: bf16 or
    fp16 on GPU, bf16 on CPUs with bf16 units, else float32). The shipped
    detectors run as `embedded_dtype(dtype)` says: "auto" is bfloat16 on CPUs with
    bf16 units (`embedded.to_bfloat16`: the encoder layers' matrix products) and
    float32 elsewhere, which is what their reference predictions were recorded in;
    "float32" forces that; "int8" (dynamic quantization on the CPU,
    `embedded.quantize_int8`) applies to them only.
    """
    if dtype is not None and dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    key = _normalise(spec)
    if key == "lexical":
        precision = None  # no model: one instance whatever the dtype
    elif key in ("embedded", "minilm"):
        precision = embedded_dtype(dtype)  # "auto" resolved, so equal choices share a model
    else:
        precision = dtype if dtype not in (None, "auto") else None
    with _lock:  # two threads asking at once must not load the model twice
        if (key, precision) not in _cache:
            _cache[(key, precision)] = _build(key, precision)
        return _cache[(key, precision)]


def clear_cache() -> None:
    """Forget loaded detectors (tests; or to free memory after a model update)."""
    with _lock:
        _cache.clear()
