"""Bounded memoisation of pure text -> list functions (tokens, sentences, typed values).

A detect worker checks the same passages and answer sentences in many places of one
verification (the typed checks, the explainer, the signals), and the same passages recur
across jobs; what those functions return depends on the text alone. `memoise_text`
keeps the last `size` results (least recently used out), only for texts of at most
`max_chars` characters so that an entry stays small, and hands each caller a new list
(callers may change their list; the items themselves must be immutable).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, wraps
from typing import Any, TypeVar

T = TypeVar("T")


def memoise_text(
    max_chars: int, size: int
) -> Callable[[Callable[[str], list[T]]], Callable[[str], list[T]]]:
    """Decorator: `fn(text)` memoised for texts up to `max_chars` characters, `size` entries."""

    def decorate(fn: Callable[[str], list[T]]) -> Callable[[str], list[T]]:
        @lru_cache(maxsize=size)
        def cached(text: str) -> tuple[T, ...]:
            return tuple(fn(text))

        @wraps(fn)
        def wrapper(text: str) -> list[T]:
            if len(text) > max_chars:
                return fn(text)
            return list(cached(text))

        wrapper_any: Any = wrapper
        wrapper_any.cache_info = cached.cache_info
        wrapper_any.cache_clear = cached.cache_clear
        wrapper_any.uncached = fn
        return wrapper

    return decorate
