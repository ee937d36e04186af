"""Length-bucketed batches for encoder inputs: one rule for every model the engine runs."""

from __future__ import annotations

from collections.abc import Sequence

MAX_PADDING = 0.25  # padded positions per batch, as a share of its real tokens


def length_batches(
    lengths: Sequence[int],
    batch_size: int,
    max_tokens: int | None = None,
    max_padding: float = MAX_PADDING,
) -> list[list[int]]:
    """Indices of `lengths` grouped into batches of similar length, shortest first.

    A batch holds at most `batch_size` sequences, pads at most `max_padding` of its
    real tokens (sequences of very different lengths go to different batches) and, when
    `max_tokens` is given, holds at most that many padded tokens unless it is one sequence.
    """
    batches: list[list[int]] = []
    current: list[int] = []
    real = 0
    for i in sorted(range(len(lengths)), key=lengths.__getitem__):
        width = lengths[i]  # ascending order: the newcomer sets the batch width
        padded = width * (len(current) + 1)
        if current and (
            len(current) >= batch_size
            or padded > (1 + max_padding) * (real + width)
            or (max_tokens is not None and padded > max_tokens)
        ):
            batches.append(current)
            current, real = [], 0
        current.append(i)
        real += width
    if current:
        batches.append(current)
    return batches
