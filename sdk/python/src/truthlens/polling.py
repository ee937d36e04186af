"""How often to ask whether a job or a document is done: soon at first, then less often."""

from __future__ import annotations

import time


class Poll:
    def __init__(self, timeout: float, first: float = 0.2, factor: float = 1.5, cap: float = 2.0):
        self._deadline = time.monotonic() + max(0.0, timeout)
        self._started = time.monotonic()
        self._delay = first
        self._factor = factor
        self._cap = cap

    @property
    def waited(self) -> float:
        return time.monotonic() - self._started

    def due(self) -> bool:
        """True while there is time left to ask again."""
        return time.monotonic() < self._deadline

    def next_delay(self) -> float:
        delay = min(self._delay, max(0.0, self._deadline - time.monotonic()))
        self._delay = min(self._delay * self._factor, self._cap)
        return delay
