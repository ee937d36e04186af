"""What of an upstream choice can be verified: prose, the string values of a JSON answer,
or nothing (a tool-call turn has no prose to check; the next turn's answer is checked)."""

from __future__ import annotations

from typing import Any

from .json_answer import JsonAnswer


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(p.get("text", "")) for p in content if isinstance(p, dict) and "text" in p
        )
    return ""


def checkable_text(message: dict[str, Any], json_mode: bool) -> tuple[str | None, str]:
    """(text to verify, "") or (None, why there is nothing to verify)."""
    text = content_text(message.get("content"))
    if not text.strip():
        if message.get("tool_calls") or message.get("function_call"):
            return None, "tool_calls"
        return None, "empty answer"
    if json_mode:
        answer = JsonAnswer.parse(text)
        if answer is None:
            return text, ""  # not JSON after all: check it as prose
        return (answer.text, "") if answer.values else (None, "no string values in the JSON answer")
    return text, ""
