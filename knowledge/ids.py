"""Public ids: "kb_<hex>" for knowledge bases, "doc_<hex>" for documents."""

from __future__ import annotations

import uuid


def _parse(value: str, prefix: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(hex=value.removeprefix(prefix))
    except (ValueError, AttributeError):
        return None


def parse_kb_id(value: str) -> uuid.UUID | None:
    return _parse(value, "kb_")


def parse_doc_id(value: str) -> uuid.UUID | None:
    return _parse(value, "doc_")
