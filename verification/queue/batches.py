"""Taking a batch off an in-process queue for a background thread (the outbox relay here,
the API's request log writer): what is waiting, up to a size, and whether to stop."""

from __future__ import annotations

import queue
from typing import TypeVar

T = TypeVar("T")


def drain(source: queue.SimpleQueue[T | None], first: T | None, size: int) -> tuple[list[T], bool]:
    """`first` (already taken, unless it is None) and what else waits in `source` without
    blocking, up to `size` items; a queued None ends the batch. The second value says whether
    a None (`first` or a queued one) was seen: the caller's stop signal."""
    stopping = first is None
    batch: list[T] = [] if first is None else [first]
    while len(batch) < size:
        try:
            item = source.get_nowait()
        except queue.Empty:
            break
        if item is None:
            stopping = True
            break
        batch.append(item)
    return batch, stopping
