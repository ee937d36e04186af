"""Documents under a header: `Context:`, `**Sources:**`, `## Retrieved passages`, numbered docs.

A header section runs to the next question header (`Question:`, `## Query`), the
next Markdown header of the same or a higher level, or the end of the message.
"""

from __future__ import annotations

import re

from ..text.documents import DOC_MARKER_RE, split_documents
from .regions import Region, words

_NAMES = (
    r"context(?: information)?|documents?|docs|sources?|retrieved (?:documents|passages|context)|"
    r"passages?|knowledge(?: base)?|reference(?:s| material| text)?|background(?: information)?|"
    r"search results|evidence|excerpts?|articles?|supporting (?:documents|information|facts)|"
    r"relevant (?:documents|information|passages|context)|facts|notes|transcript|report"
)
_COLON_HEADER_RE = re.compile(rf"^[ \t>*_]*(?:{_NAMES})[ \t*_]*:[ \t*_]*\n?", re.I | re.M)
_MD_HEADER_RE = re.compile(rf"^(?P<level>#{{1,6}})[ \t]+(?:{_NAMES})\b[^\n]*\n", re.I | re.M)
_ANY_MD_HEADER_RE = re.compile(r"^(#{1,6})[ \t]+\S", re.M)
QUESTION_RE = re.compile(
    r"^[ \t>#*_]*(?:question|query|user question|user query|task|instructions?|answer|"
    r"the question is|now answer)\b[^\n:]*:",
    re.I | re.M,
)
MIN_WORDS = 4


def _end_of_section(text: str, start: int, level: int | None) -> int:
    ends = [len(text)]
    if (q := QUESTION_RE.search(text, start)) is not None:
        ends.append(q.start())
    if level is not None:
        for h in _ANY_MD_HEADER_RE.finditer(text, start):
            if len(h.group(1)) <= level:
                ends.append(h.start())
                break
    return min(ends)


def _section(text: str, start: int, end: int, how: str, head: int | None = None) -> list[Region]:
    """The passages of `text[start:end]`; the region begins at `head` (its header) if given."""
    body = text[start:end]
    if words(body) < MIN_WORDS:
        return []
    # one region for the section, split into passages where it lists documents
    return [Region(start if head is None else head, end, p, how) for p in split_documents(body)]


def headed_documents(text: str) -> list[Region]:
    """Passages under context headers (colon-style or Markdown), in order."""
    out: list[Region] = []
    for m in _MD_HEADER_RE.finditer(text):
        if any(r.start <= m.start() < r.end for r in out):
            continue  # "### Source 1" inside "## Sources": already taken with its section
        end = _end_of_section(text, m.end(), len(m["level"]))
        out.extend(_section(text, m.end(), end, "md", head=m.start()))
    for m in _COLON_HEADER_RE.finditer(text):
        if any(r.start <= m.start() < r.end for r in out):
            continue
        out.extend(_section(text, m.end(), _end_of_section(text, m.end(), 6), "header", m.start()))
    return out


def numbered_documents(text: str) -> list[Region]:
    """The documents of a text that lists "[1]"/"Document 2:" items (one must be long)."""
    starts = [m.start() for m in DOC_MARKER_RE.finditer(text)]
    if not starts:
        return []
    if len(starts) == 1:  # one labelled document: only when it reads like one
        end = _end_of_section(text, starts[0], None)
        return (
            _section(text, starts[0], end, "numbered") if words(text[starts[0] : end]) >= 12 else []
        )
    end = _end_of_section(text, starts[-1], None)
    return _section(text, starts[0], end, "numbered")


_LABEL_RE = re.compile(
    r"^[ \t>#*_]*(?:question|query|user question|user query|q)[ \t*_]*:[ \t*_]*", re.I | re.M
)
_EMPTY_LABEL_RE = re.compile(
    r"^[ \t>#*_]*(?:answer|a|response|helpful answer)[ \t*_]*:[ \t*_]*$", re.I | re.M
)


def clean_query(text: str) -> str:
    """A question without its template labels ("Question:", a trailing "Answer:")."""
    return _EMPTY_LABEL_RE.sub("", _LABEL_RE.sub("", text)).strip()
