"""Turning framework objects (documents, nodes, messages) into plain passages and text."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..models import Verification


def passages(items: Any) -> list[str]:
    """Strings from LangChain Documents, LlamaIndex nodes, dicts or strings."""
    if items is None:
        return []
    if isinstance(items, str):
        return [items]
    found: list[str] = []
    for item in items if isinstance(items, Iterable) else [items]:
        text = text_of(item)
        if text.strip():
            found.append(text)
    return found


def text_of(item: Any) -> str:
    if isinstance(item, str):
        return item
    for attribute in ("page_content", "text", "content"):
        value = getattr(item, attribute, None)
        if isinstance(value, str):
            return value
    node = getattr(item, "node", None)  # LlamaIndex NodeWithScore
    if node is not None:
        return node.get_content()
    if isinstance(item, dict):
        for key in ("page_content", "text", "content"):
            if isinstance(item.get(key), str):
                return item[key]
    return str(item)


def describe(result: Verification) -> str:
    """One line a person can read: the verdict and the flagged spans."""
    if result.status != "completed":
        return f"verification {result.status}: {result.error_message or result.reason}"
    if not result.spans:
        return f"{result.verdict or result.verification_status}: no span flagged"
    spans = "; ".join(f"{s.text!r} ({s.label}, {s.confidence:.2f})" for s in result.spans)
    return f"{result.verdict or result.verification_status}: {spans}"
