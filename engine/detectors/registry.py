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

The named specs are the `DETECTORS` table (one `DetectorKind` each: its loader, a typed
lazy entry point, and how it takes a precision); the kinds of folder are `FOLDER_KINDS`,
tried in order. A new detector is one entry there (docs/architecture.md "Registries").

The service passes `TRUTHLENS_DETECTOR` and `TRUTHLENS_DETECTOR_DTYPE`
(`verification.tenant_config.service_detector`).

Loading a model takes seconds and hundreds of MB, so each spec is loaded
once per process and the same instance is returned afterwards (workers
call this per job).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from .base import Detector

if TYPE_CHECKING:
    from .embedded import EmbeddedDetector
    from .ensemble import EnsembleDetector
    from .lexical import LexicalDetector
    from .transformer import TransformerDetector

DEFAULT_SPEC = "embedded"

_cache: dict[tuple[str, str | None], Detector] = {}
_lock = threading.RLock()  # re-entrant: "embedded" loads "minilm" and "lexical"


class UnknownDetectorError(ValueError):
    """The spec names no known detector and no existing model folder."""


class DetectorLoader(Protocol):
    """A named kind's entry point: builds the detector at a resolved precision (None for a
    kind with no model). It imports the detector's module when called, so a process that
    never chooses the kind never loads its libraries (torch, transformers)."""

    def __call__(self, precision: str | None, /) -> Detector: ...


class FolderTest(Protocol):
    def __call__(self, path: Path, /) -> bool: ...


class FolderLoader(Protocol):
    """A folder kind's entry point: builds the detector held in `path`, lazily as above."""

    def __call__(self, path: Path, precision: str | None, /) -> Detector: ...


#: How the `dtype` asked for becomes the precision a detector is built and cached at:
#: "none" (no model: one instance whatever the dtype), "embedded" (`embedded_dtype`: "auto"
#: resolved, so equal choices share a model), "as_asked" (the dtype; "auto" is None).
Precision = Literal["none", "embedded", "as_asked"]


@dataclass(frozen=True)
class DetectorKind:
    """A detector named by a spec of its own ("embedded", "minilm", "lexical")."""

    name: str
    summary: str
    load: DetectorLoader
    precision: Precision


@dataclass(frozen=True)
class FolderKind:
    """A detector held in a folder ("hf:<path>" or a path): the first kind whose `matches`
    accepts the folder loads it."""

    name: str
    summary: str
    matches: FolderTest
    load: FolderLoader


def _embedded(precision: str | None) -> EnsembleDetector:
    from .ensemble import shipped_ensemble

    return shipped_ensemble(load_detector("minilm", precision), load_detector("lexical"))


def _minilm(precision: str | None) -> EmbeddedDetector:
    from .embedded import EmbeddedDetector  # loads torch

    return EmbeddedDetector(dtype=embedded_dtype(precision))


def _lexical(precision: str | None) -> LexicalDetector:
    from .lexical import LexicalDetector

    return LexicalDetector()


def _is_embedded_folder(path: Path) -> bool:
    from .embedded import MANIFEST_FILE, NAME  # see load_detector

    manifest = path / MANIFEST_FILE
    if not manifest.is_file():
        return False
    try:
        name = json.loads(manifest.read_text(encoding="utf-8")).get("name")
    except (OSError, ValueError):
        return False
    return bool(name == NAME)


def _embedded_folder(path: Path, precision: str | None) -> EnsembleDetector:
    from .embedded import EmbeddedDetector  # loads torch
    from .ensemble import shipped_ensemble

    # "auto" is float32 here: bf16's accuracy was measured on the shipped model only
    arithmetic = embedded_dtype(precision) if precision is not None else "float32"
    return shipped_ensemble(
        EmbeddedDetector(path, dtype=arithmetic), load_detector("lexical"), path
    )


def _transformer(path: Path, precision: str | None) -> TransformerDetector:
    if precision == "int8":
        raise ValueError("int8 applies to the embedded detector and its retrained folders")
    from .transformer import TransformerDetector  # loads torch and transformers

    return TransformerDetector(path, dtype=precision)


def _any_folder(path: Path) -> bool:
    return True


#: The detectors a spec names, the default first.
DETECTORS: dict[str, DetectorKind] = {
    kind.name: kind
    for kind in (
        DetectorKind(
            "embedded",
            "the shipped MiniLM detector averaged with lexical grounding, and the response head",
            _embedded,
            precision="embedded",
        ),
        DetectorKind("minilm", "the shipped MiniLM token classifier alone", _minilm, "embedded"),
        DetectorKind("lexical", "lexical grounding alone (no model)", _lexical, "none"),
    )
}

#: The detectors a folder holds, tried in order.
FOLDER_KINDS: tuple[FolderKind, ...] = (
    FolderKind(
        "embedded-folder",
        "a folder written by `python -m engine.train`: loads as the default does",
        _is_embedded_folder,
        _embedded_folder,
    ),
    FolderKind(
        "hf",
        "a Hugging Face token-classification checkpoint",
        _any_folder,
        _transformer,
    ),
)


def _normalise(spec: str) -> str:
    spec = (spec or DEFAULT_SPEC).strip()
    if spec in DETECTORS:
        return spec
    path = spec[3:] if spec.startswith("hf:") else spec
    return "hf:" + str(Path(path).expanduser().resolve())


def _precision(key: str, dtype: str | None) -> str | None:
    rule: Precision = DETECTORS[key].precision if key in DETECTORS else "as_asked"
    if rule == "none":
        return None
    if rule == "embedded":
        return embedded_dtype(dtype)
    return dtype if dtype not in (None, "auto") else None


def _build(key: str, precision: str | None) -> Detector:
    if key in DETECTORS:
        return DETECTORS[key].load(precision)
    path = Path(key[3:])
    if not path.is_dir():
        names = ", ".join(repr(name) for name in DETECTORS)
        raise UnknownDetectorError(
            f"unknown detector {key[3:]!r}: expected {names}, "
            "'hf:<folder>' or an existing model folder"
        )
    kind = next(kind for kind in FOLDER_KINDS if kind.matches(path))
    return kind.load(path, precision)


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
    precision = _precision(key, dtype)
    with _lock:  # two threads asking at once must not load the model twice
        if (key, precision) not in _cache:
            _cache[(key, precision)] = _build(key, precision)
        return _cache[(key, precision)]


def clear_cache() -> None:
    """Forget loaded detectors (tests; or to free memory after a model update)."""
    with _lock:
        _cache.clear()
