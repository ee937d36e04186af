"""Blocks of documents as people paste them: "[1] ...", "Document 2:" markers, blank lines.

Shared by the chat-messages reader (`text/messages.py`) and the context finder
(`grounding/`), which both split a block into passages the same way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# "[1] ...", "Document 2:", "Passage 3 -", "Source [4]" at the start of a line.
DOC_MARKER_RE = re.compile(
    r"^[ \t]*(?:\[[\w.\-]{1,20}\]|(?:document|doc|passage|source)\s*\[?\w{1,20}\]?\s*[:\-.)])",
    re.I | re.M,
)


def split_documents(text: str) -> list[str]:
    """Split a block of documents into passages: at "[1]"/"Document 2:" markers when
    there are at least two, else at blank lines; the whole text when neither applies."""
    starts = [m.start() for m in DOC_MARKER_RE.finditer(text)]
    if len(starts) >= 2:
        bounds = [0, *starts, len(text)]
        pieces = [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    else:
        pieces = re.split(r"\n\s*\n", text)
    return [p.strip() for p in pieces if p.strip()]


def marker_ids(passages: Sequence[str]) -> list[str] | None:
    """The ids the passages label themselves with ("[3] ..." → "3", "Document 7: ..." → "7"),
    or None unless every passage has one and they are distinct."""
    ids = []
    for p in passages:
        m = DOC_MARKER_RE.match(p)
        if m is None:
            return None
        ids.append(
            re.sub(r"^(?:document|doc|passage|source)\s*", "", m.group().strip(), flags=re.I).strip(
                "[]:-.) \t"
            )
        )
    return ids if len(set(ids)) == len(ids) and all(ids) else None
