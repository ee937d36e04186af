"""Documents in Markdown fences (```...```, ~~~...~~~) or between delimiter lines.

A fence holds a document when it is prose: no language or a prose one
(`text`, `markdown`, ...), mostly letters and spaces. Code fences are the
question, not the grounding ("why does this fail?").
"""

from __future__ import annotations

import re

from .regions import Region, words

_FENCE_RE = re.compile(
    r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)^[ \t]*(?P=fence)[ \t]*$",
    re.M | re.S,
)
_PROSE_LANGS = frozenset({"", "text", "txt", "plain", "plaintext", "markdown", "md", "quote"})
# LlamaIndex's "---------------------" frames, `"""` and `<<< >>>` blocks.
_DELIMITED_RE = re.compile(
    r'^[ \t]*(?P<d>-{5,}|={5,}|\*{5,}|"""|<<<|#{5,})[ \t]*\n(?P<body>.*?)\n[ \t]*(?:(?P=d)|>>>)[ \t]*$',
    re.M | re.S,
)
MIN_WORDS = 12


def _is_prose(text: str) -> bool:
    if not text.strip():
        return False
    prose = sum(c.isalpha() or c.isspace() or c in ".,;:'\"!?()-%$" for c in text)
    return prose / len(text) >= 0.9


def fenced_documents(text: str) -> list[Region]:
    """Prose fences and delimited blocks long enough to be a document."""
    out: list[Region] = []
    for m in _FENCE_RE.finditer(text):
        body = m["body"].strip()
        if m["lang"].lower() in _PROSE_LANGS and _is_prose(body) and words(body) >= MIN_WORDS:
            out.append(Region(m.start(), m.end(), body, "fence"))
    for m in _DELIMITED_RE.finditer(text):
        body = m["body"].strip()
        inside = any(r.start <= m.start() < r.end for r in out)
        if _is_prose(body) and words(body) >= MIN_WORDS and not inside:
            out.append(Region(m.start(), m.end(), body, "delimited"))
    return out
