"""Shared fixtures for the engine tests: no Django, no network, one MiniLM load per session.

`eiffel` comes from tests/conftest.py; engine tests read its `.context` passages."""

from __future__ import annotations

import os
from collections.abc import Sequence

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from engine.text.embeddings import Encoder, get_encoder
from engine.text.words import tokenize
from engine.types import (
    Coverage,
    DetectionInput,
    TokenPrediction,
    TokenProb,
)


@pytest.fixture(scope="session")
def encoder() -> Encoder:
    try:
        import torch

        torch.set_num_threads(1)  # the test machine's cores are shared
    except ImportError:
        pass
    enc = get_encoder()
    if enc is None:
        pytest.skip("MiniLM encoder not installed")
    return enc


class ScriptedDetector:
    """A detector whose token probabilities are given per word; records its calls."""

    name = "scripted"

    def __init__(
        self,
        probs: dict[str, float] | None = None,
        languages: frozenset[str] = frozenset({"en"}),
        coverage: Coverage | None = None,
    ) -> None:
        self.probs = probs or {}
        self.languages = languages
        self.coverage = coverage
        self.calls: list[int] = []

    def predict(self, items: Sequence[DetectionInput]) -> list[TokenPrediction]:
        self.calls.append(len(items))
        out = []
        for item in items:
            tokens = [
                TokenProb(w.start, w.end, self.probs.get(w.surface, 0.05))
                for w in tokenize(item.response)
            ]
            cov = self.coverage or Coverage(
                answer_tokens_given=len(tokens), answer_tokens_checked=len(tokens), windows=1
            )
            out.append(TokenPrediction(tokens=tokens, coverage=cov, detector_tokens=len(tokens)))
        return out


@pytest.fixture
def scripted() -> type[ScriptedDetector]:
    return ScriptedDetector
