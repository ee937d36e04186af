"""OpenAI-style chat `messages` → one `DetectionInput`.

The grounding context is whatever `engine.grounding.find_context`
finds in the messages before the answer (tool results, document parts, tagged,
headed, fenced or numbered documents, plain-language "use this document"
prompts); the last user message without its documents is the query; the last
assistant message is the response to check. `POST /v1/verifications` with
`messages` and the gateway read conversations the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..grounding import find_context
from ..types import DetectionInput
from .documents import DOC_MARKER_RE, marker_ids, split_documents

ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})

_CONTEXT_HEADER_RE = re.compile(
    r"^[ \t#*]*(?:context|documents?|sources?|retrieved (?:documents|passages|context)|"
    r"passages?|knowledge|reference(?:s| material)?)[ \t*]*:[ \t]*\n?",
    re.I | re.M,
)
_QUESTION_HEADER_RE = re.compile(r"^[ \t#*]*(?:question|query|user question)[ \t*]*:", re.I | re.M)


class MessagesError(ValueError):
    """The messages cannot be turned into a detection input; the message says why."""


def _text(content: Any, where: str) -> str:
    """Message content as text: a string, or the text parts of a content-part list."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and part.get("type") in ("text", "input_text"):
                parts.append(str(part.get("text", "")))
            elif not isinstance(part, Mapping):
                raise MessagesError(f"{where}: content parts must be objects or strings")
        return "\n".join(parts)
    raise MessagesError(f"{where}: content must be a string or a list of content parts")


def _system_context(text: str) -> list[str]:
    header = _CONTEXT_HEADER_RE.search(text)
    if header is not None:
        return split_documents(text[header.end() :])
    if len(DOC_MARKER_RE.findall(text)) >= 2:  # the prompt is itself a list of documents
        return split_documents(text)
    return []


def _user_context(text: str) -> tuple[list[str], str]:
    """(passages, question) from a user message that embeds its own context."""
    header = _CONTEXT_HEADER_RE.search(text)
    if header is None:
        return [], text
    question = _QUESTION_HEADER_RE.search(text, header.end())
    if question is not None:
        return split_documents(text[header.end() : question.start()]), text[
            question.end() :
        ].strip()
    before = text[: header.start()].strip()
    return split_documents(text[header.end() :]), before


def inputs_from_messages(
    messages: Sequence[Mapping[str, Any]], passage_ids: Sequence[str] | None = None
) -> DetectionInput:
    """The `DetectionInput` a conversation asks us to verify.

    `passage_ids` default to the passages' own "[id]"/"Document id:" labels
    when every passage has one, else to "1".."n" (`DetectionInput` default).
    Raises `MessagesError` (a `ValueError`) for an empty list, malformed
    messages, an unknown role, or no non-empty assistant message.
    """
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes) or not messages:
        raise MessagesError("messages must be a non-empty list")
    response: str | None = None
    for i, msg in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(msg, Mapping):
            raise MessagesError(f"{where}: must be an object with 'role' and 'content'")
        role = msg.get("role")
        if role not in ROLES:
            raise MessagesError(f"{where}: unknown role {role!r}")
        text = _text(msg.get("content"), where)
        if role == "assistant" and text.strip():  # tool-call-only turns have no content
            response = text
    # Everything before the answer is where its context may be (the gateway's finder).
    last = max(i for i, m in enumerate(messages) if m.get("role") == "assistant") if response else 0
    found = find_context(messages[:last])
    passages = list(found.passages)
    query = found.query
    if response is None:
        raise MessagesError("no assistant message with text content to verify")
    # Citation markers in the answer refer to the labels the documents carry,
    # so "[3]" stays valid when passage "[3]" is the first one we kept.
    ids = list(passage_ids) if passage_ids is not None else marker_ids(passages)
    return DetectionInput.build(passages, response, query=query, passage_ids=ids)
