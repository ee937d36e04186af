"""Finding the grounding context of a chat conversation (pure Python, no Django)."""

from .find import FoundContext, find_context

__all__ = ["FoundContext", "find_context"]
