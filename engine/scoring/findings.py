"""A typed finding: one span of the answer judged against the context by a rule."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Verdict = Literal["match", "conflict", "absent"]


@dataclass(frozen=True)
class Finding:
    start: int  # character offsets into the answer
    end: int
    kind: str  # time | date | year | quantity | negation | antonym | class | record
    verdict: Verdict
    #: (passage index, start, end) of the context value or sentence it was compared with
    evidence: tuple[int, int, int] | None = None
    reason: str = ""
