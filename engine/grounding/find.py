"""Where a chat conversation keeps its grounding context, found without being told.

Sources, strongest first: tool results (`role` "tool"/"function"), document
content parts, then in system/developer/user messages XML-style tags, context
headers (colon or Markdown), prose fences and delimited blocks, numbered
documents, and last a plain-language cue ("answer from this document: ...").
A weaker source never takes text a stronger one took. When nothing is found
but the conversation asks for grounding, `status` is "missing".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .cues import asks_for_grounding, cued_documents
from .fences import fenced_documents
from .headers import clean_query, headed_documents, numbered_documents
from .regions import Region, overlaps, remainder, words
from .tags import strip_shells, tagged_documents

Status = Literal["found", "missing", "none"]
Extractor = Callable[[str], list[Region]]
EXTRACTORS: tuple[Extractor, ...] = (
    tagged_documents,
    headed_documents,
    fenced_documents,
    numbered_documents,
)
# A non-final text part of a user message this long is a document, not the question.
DOCUMENT_PART_WORDS = 40


@dataclass(frozen=True)
class FoundContext:
    """The passages found, how each was found, the question, and the verdict on grounding."""

    passages: tuple[str, ...]
    sources: tuple[str, ...]
    query: str | None
    status: Status

    @property
    def found(self) -> bool:
        return self.status == "found"


def _parts(content: Any) -> list[tuple[str, str]]:
    """(kind, text) of a message's content: "text" parts and "document" parts."""
    if content is None:
        return []
    if isinstance(content, str):
        return [("text", content)]
    out: list[tuple[str, str]] = []
    for part in content if isinstance(content, Sequence) else ():
        if isinstance(part, str):
            out.append(("text", part))
        elif isinstance(part, Mapping):
            kind = part.get("type")
            if kind in ("text", "input_text"):
                out.append(("text", str(part.get("text") or "")))
            elif kind == "document":  # Anthropic-style plain-text document block
                source = part.get("source")
                data = source.get("data") if isinstance(source, Mapping) else part.get("text")
                if isinstance(data, str):
                    out.append(("document", data))
            elif kind == "tool_result":
                out.append(("tool", "\n".join(t for _, t in _parts(part.get("content")))))
    return out


def _regions(text: str) -> list[Region]:
    taken: list[Region] = []
    for extract in EXTRACTORS:
        # one extractor's passages may share a section; only earlier extractors' count
        taken.extend([r for r in extract(text) if not overlaps(r, taken)])
    return taken


def find_context(messages: Sequence[Mapping[str, Any]]) -> FoundContext:
    """The grounding context of a conversation (everything but the answer being checked).

    Never raises on odd shapes: unknown roles and content are skipped, since the
    gateway forwards whatever the upstream accepts.
    """
    passages: list[tuple[str, str]] = []
    query: str | None = None
    prose: list[tuple[int, str]] = []  # (message index, text) for the cue pass
    cue_targets: list[int] = []
    for i, msg in enumerate(messages):
        role = msg.get("role") if isinstance(msg, Mapping) else None
        parts = _parts(msg.get("content")) if isinstance(msg, Mapping) else []
        if role in ("tool", "function"):
            text = "\n".join(t for _, t in parts).strip()
            if text:
                passages.append((text, "tool"))
            continue
        if role not in ("system", "developer", "user"):
            continue
        texts = [t for k, t in parts if k == "text"]
        for kind, t in parts:
            if kind in ("document", "tool") and t.strip():
                passages.append((t.strip(), kind))
        if role == "user" and len(texts) > 1:
            # documents sent as their own content parts, the question last
            for t in texts[:-1]:
                if words(t) >= DOCUMENT_PART_WORDS and not _regions(t):
                    passages.append((t.strip(), "content_part"))
                    texts.remove(t)
        text = "\n\n".join(texts)
        regions = _regions(text)
        passages.extend((r.text, r.how) for r in regions)
        prose.append((i, text))
        if role == "user":
            query = clean_query(strip_shells(remainder(text, regions))) or query
            cue_targets.append(len(prose) - 1)
    if not passages:
        for k, (_, text) in enumerate(prose):
            cued = cued_documents(text)
            if cued:
                passages.extend((r.text, r.how) for r in cued)
                if k in cue_targets and k == cue_targets[-1]:
                    query = clean_query(remainder(text, cued)) or query
                break
    if passages:
        return FoundContext(
            tuple(p for p, _ in passages), tuple(s for _, s in passages), query, "found"
        )
    grounded = any(asks_for_grounding(text) for _, text in prose) or any(
        isinstance(m, Mapping) and m.get("role") in ("tool", "function") for m in messages
    )
    return FoundContext((), (), query, "missing" if grounded else "none")
