"""The detector contract every token-level detector implements."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from ..types import DetectionInput, TokenPrediction


@runtime_checkable
class Detector(Protocol):
    """Scores each answer token with a hallucination probability.

    Implementations load their model once (in `__init__`) and are then
    called many times with micro-batches; `predict` must return one
    `TokenPrediction` per input, in order, and must not raise on empty
    context (return tokens with their best guess and coverage saying so).
    """

    name: str
    #: ISO 639-1 codes the model was trained on; the pipeline marks other
    #: languages `unverifiable` instead of guessing.
    languages: frozenset[str]

    def predict(self, items: Sequence[DetectionInput]) -> list[TokenPrediction]: ...
