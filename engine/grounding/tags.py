"""Documents wrapped in XML-style tags: `<document>`, `<context>`, `<source>`, `<search_results>`...

Prompt templates (Anthropic's long-context guide, most agent frameworks) wrap
each document in a tag, often with metadata tags inside (`<source>a.pdf</source>`
next to `<document_content>`). We keep the innermost tagged text that is long
enough to be a passage; short tags nested inside a document are metadata.
"""

from __future__ import annotations

import re

from .regions import Region, words

_CONTEXT_TAGS = (
    "documents?|docs?|contexts?|sources?|passages?|excerpts?|articles?|references?|"
    "knowledge|search_results?|retrieved_(?:context|documents|passages)|document_content|"
    "content|snippets?|chunks?|information|facts|text|report|transcript|email|"
    "tool_results?|function_results?|file|page|evidence|background|data"
)
_TAG_RE = re.compile(
    rf"<(?P<tag>{_CONTEXT_TAGS})(?:\s[^<>]*)?>(?P<body>.*?)</(?P=tag)\s*>", re.I | re.S
)
_ANY_TAG_RE = re.compile(r"</?[A-Za-z_][\w:.-]*(?:\s[^<>]*)?/?>")
# Inside a document these name it rather than hold it.
_METADATA_TAGS = frozenset({"source", "sources", "file", "page", "data"})
MIN_WORDS = 4


def _regions(text: str, offset: int, nested: bool) -> list[Region]:
    out: list[Region] = []
    for m in _TAG_RE.finditer(text):
        body_start = offset + m.start("body")
        inner = _regions(m.group("body"), body_start, nested=True)
        if inner:
            out.extend(inner)
            continue
        if nested and m.group("tag").lower() in _METADATA_TAGS and words(m.group("body")) < 12:
            continue
        body = _ANY_TAG_RE.sub(" ", m.group("body")).strip()
        if words(body) >= MIN_WORDS:
            out.append(Region(offset + m.start(), offset + m.end(), body, "tag"))
    return out


def tagged_documents(text: str) -> list[Region]:
    """One region per tagged document (the innermost long-enough tag), in order."""
    return _regions(text, 0, nested=False)


_SHELL_RE = re.compile(rf"</?(?:{_CONTEXT_TAGS}|title|url|id|index|metadata)(?:\s[^<>]*)?/?>", re.I)
_META_RE = re.compile(
    r"<(?P<t>source|title|url|id|index|metadata)(?:\s[^<>]*)?>[^<]{0,300}</(?P=t)\s*>", re.I
)


def strip_shells(text: str) -> str:
    """`text` without the empty wrappers and metadata tags its documents were taken from."""
    return _SHELL_RE.sub("", _META_RE.sub("", text)).strip()
