"""The MiniLM sentence encoder batches texts by length; a row does not depend on its batch."""

from __future__ import annotations

import numpy as np
import pytest

from engine.text import embeddings

pytestmark = pytest.mark.slow

TEXTS = [
    "Paris.",
    "The Eiffel Tower was built from 1887 to 1889 and is 330 metres tall. " * 12,
    "It is 330 metres tall.",
    "",
    "The tower, designed by Gustave Eiffel's company, was the world's tallest structure "
    "until the Chrysler Building was finished in New York in 1930.",
    "Bergen was founded in 1070.",
]


def test_length_batches_sort_by_length_and_bound_padding():
    lengths = [3, 200, 5, 2, 40, 7]
    batches = embeddings._length_batches(lengths)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for batch in batches:
        widths = [lengths[i] for i in batch]
        assert widths == sorted(widths)
        assert len(batch) == 1 or max(widths) * len(batch) <= 1.25 * sum(widths)
    assert [lengths[b[0]] for b in batches] == sorted(lengths[b[0]] for b in batches)
    assert len(embeddings._length_batches([10] * 130)) == 3  # at most BATCH_SIZE each


def test_each_row_equals_the_text_encoded_alone():
    encoder = embeddings.get_encoder()
    assert encoder is not None
    together = encoder.encode(TEXTS)
    assert together.shape == (len(TEXTS), encoder.model.config.hidden_size)
    for text, row in zip(TEXTS, together, strict=True):
        np.testing.assert_allclose(row, encoder.encode([text])[0], atol=1e-5)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert encoder.encode([]).shape == (0, encoder.model.config.hidden_size)
