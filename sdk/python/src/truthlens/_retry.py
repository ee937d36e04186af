"""When and how long to retry: 429 and 5xx answers and dropped connections, with exponential
backoff and jitter, or exactly the server's `Retry-After` when it sends one.

Every POST carries an `Idempotency-Key` that stays the same across the retries of one call,
so a retry after a lost answer returns the original job instead of billing a second one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import httpx
from tenacity import RetryCallState, stop_after_attempt

from .errors import APIError, RateLimitError

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """`max_retries` retries after the first try; `max_retry_after` caps how long one
    `Retry-After` may make us wait (a longer one, like the monthly quota's, is raised)."""

    max_retries: int = 3
    initial_backoff: float = 0.5
    max_backoff: float = 8.0
    max_retry_after: float = 60.0

    def should_retry(self, exc: BaseException | None) -> bool:
        if isinstance(exc, APIError):
            if exc.status not in RETRY_STATUSES:
                return False
            if isinstance(exc, RateLimitError) and exc.slug == "quota-exceeded":
                return False  # nothing changes before the next month
            return exc.retry_after is None or exc.retry_after <= self.max_retry_after
        # a dropped connection or a timeout: the request may or may not have arrived,
        # which the Idempotency-Key makes safe to repeat
        return isinstance(exc, httpx.TransportError)

    def wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, APIError) and exc.retry_after is not None:
            return exc.retry_after
        # 0.5 s doubling per attempt, capped, plus up to 0.5 s of jitter so clients that
        # failed together do not retry together
        doubled = self.initial_backoff * 2 ** (state.attempt_number - 1)
        return min(doubled, self.max_backoff) + random.uniform(0, self.initial_backoff)

    def tenacity_kwargs(self) -> dict:
        return {
            "stop": stop_after_attempt(self.max_retries + 1),
            "wait": self.wait,
            "retry": lambda state: self.should_retry(
                state.outcome.exception() if state.outcome else None
            ),
            "reraise": True,
        }
