"""A found passage and where it sat in its message, so the rest of the message is the query."""

from __future__ import annotations

import re
from dataclasses import dataclass

_WORD_RE = re.compile(r"\w+")


@dataclass(frozen=True)
class Region:
    """`text` (the passage) was found in `[start, end)` of its message by `how`."""

    start: int
    end: int
    text: str
    how: str


def words(text: str) -> int:
    return len(_WORD_RE.findall(text))


def overlaps(region: Region, taken: list[Region]) -> bool:
    return any(region.start < t.end and t.start < region.end for t in taken)


def remainder(text: str, taken: list[Region]) -> str:
    """`text` without the regions taken from it."""
    out, pos = [], 0
    for r in sorted(taken, key=lambda r: r.start):
        out.append(text[pos : r.start])
        pos = max(pos, r.end)
    out.append(text[pos:])
    return re.sub(r"\n{3,}", "\n\n", "".join(out)).strip()
