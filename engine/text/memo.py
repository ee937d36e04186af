"""Bounded memoisation of pure text -> list functions (tokens, sentences, typed values).

A detect worker checks the same passages and answer sentences in many places of one
verification (the typed checks, the explainer, the signals), and the same passages recur
across jobs; what those functions return depends on the text alone. `memoise_text`
keeps the last `size` results (least recently used out) for texts of at most `max_chars`
characters, and, when `long_size` is set, the last `long_size` results for texts of up to
`long_chars` (a micro-batch's passages) apart, so that long texts do not push the many short
ones out; longer texts are worked out afresh. Each caller gets a new list (callers may
change their list; the items themselves must be immutable).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, wraps
from typing import Any, TypeVar

T = TypeVar("T")


def memoise_text(
    max_chars: int, size: int, *, long_chars: int = 0, long_size: int = 0
) -> Callable[[Callable[[str], list[T]]], Callable[[str], list[T]]]:
    """Decorator: `fn(text)` memoised as the module doc says."""

    def decorate(fn: Callable[[str], list[T]]) -> Callable[[str], list[T]]:
        def run(text: str) -> tuple[T, ...]:
            return tuple(fn(text))

        short = lru_cache(maxsize=size)(run)
        long = lru_cache(maxsize=long_size)(run) if long_size and long_chars > max_chars else None

        @wraps(fn)
        def wrapper(text: str) -> list[T]:
            if len(text) <= max_chars:
                return list(short(text))
            if long is not None and len(text) <= long_chars:
                return list(long(text))
            return fn(text)

        def cache_clear() -> None:
            short.cache_clear()
            if long is not None:
                long.cache_clear()

        wrapper_any: Any = wrapper
        wrapper_any.cache_info = short.cache_info
        wrapper_any.long_cache_info = long.cache_info if long is not None else None
        wrapper_any.cache_clear = cache_clear
        return wrapper

    return decorate
