"""The shape of an Anthropic Messages request, checked before litellm's adapter sees it.

The adapter indexes what it expects (`m["role"]`, `tool_choice["type"]`) and calls
`.get` on every content block, so a message without a role or a block that is not an
object was a `KeyError` or `AttributeError` deep inside litellm: a 500. Here every
field the adapter reads gets its type checked and a bad one becomes a 400 naming it
(`messages.0.role`), in Anthropic's error format (`anthropic_error`).
"""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ValidationError

from api.errors import problem_exception_handler

from .errors import problem_message

MAX_MESSAGES = 1000
MAX_BLOCKS = 1000
MAX_TOOLS = 256
MAX_STOP_SEQUENCES = 64

ROLES = ("user", "assistant")
TOOL_CHOICES = ("auto", "any", "tool", "none")

# block type -> {field: (JSON type(s), required)}: what the adapter reads of each block
_BLOCKS: dict[str, dict[str, tuple[tuple[type, ...], bool]]] = {
    "text": {"text": ((str,), True)},
    "image": {"source": ((dict,), True)},
    "document": {"source": ((dict,), True), "title": ((str,), False)},
    "tool_use": {"id": ((str,), True), "name": ((str,), True), "input": ((dict,), True)},
    "tool_result": {"tool_use_id": ((str,), True), "content": ((str, list), False)},
    "thinking": {"thinking": ((str,), True), "signature": ((str,), False)},
    "redacted_thinking": {"data": ((str,), True)},
}

_TYPE_NAMES = {str: "a string", dict: "an object", list: "a list", bool: "a boolean"}


class _Errors:
    def __init__(self) -> None:
        self.found: dict[str, list[str]] = {}

    def add(self, path: str, message: str) -> None:
        self.found.setdefault(path, []).append(message)

    def check_type(self, value: Any, kinds: tuple[type, ...], path: str) -> bool:
        # bool is an int in Python, never a number in JSON's sense here
        if isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds):
            return True
        self.add(
            path, "must be " + " or ".join(_TYPE_NAMES.get(k, k.__name__) for k in kinds) + "."
        )
        return False


def _number(errors: _Errors, body: dict, name: str, low: float, high: float | None) -> None:
    value = body.get(name)
    if name not in body or value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        errors.add(name, "must be a number.")
    elif value < low or (high is not None and value > high):
        errors.add(name, f"must be between {low} and {high}." if high else f"must be >= {low}.")


def _blocks(errors: _Errors, blocks: list, path: str, allowed: tuple[str, ...] | None) -> None:
    if len(blocks) > MAX_BLOCKS:
        errors.add(path, f"has more than {MAX_BLOCKS} content blocks.")
        return
    for index, block in enumerate(blocks):
        where = f"{path}.{index}"
        if not errors.check_type(block, (dict,), where):
            continue
        kind = block.get("type")
        names = allowed or tuple(_BLOCKS)
        if kind not in names:
            errors.add(f"{where}.type", f"must be one of: {', '.join(names)}.")
            continue
        for field, (kinds, required) in _BLOCKS[kind].items():
            if field in block:
                errors.check_type(block[field], kinds, f"{where}.{field}")
            elif required:
                errors.add(f"{where}.{field}", "This field is required.")
        if kind == "tool_result" and isinstance(block.get("content"), list):
            _blocks(errors, block["content"], f"{where}.content", ("text", "image", "document"))


def _messages(errors: _Errors, messages: Any) -> None:
    if not errors.check_type(messages, (list,), "messages"):
        return
    if not messages:
        errors.add("messages", "must hold at least one message.")
    elif len(messages) > MAX_MESSAGES:
        errors.add("messages", f"has more than {MAX_MESSAGES} messages.")
        return
    for index, message in enumerate(messages):
        path = f"messages.{index}"
        if not errors.check_type(message, (dict,), path):
            continue
        if "role" not in message:
            errors.add(f"{path}.role", "This field is required.")
        elif message["role"] not in ROLES:
            errors.add(f"{path}.role", f"must be one of: {', '.join(ROLES)}.")
        content = message.get("content")
        if "content" not in message:
            errors.add(f"{path}.content", "This field is required.")
        elif errors.check_type(content, (str, list), f"{path}.content") and isinstance(
            content, list
        ):
            _blocks(errors, content, f"{path}.content", None)


def _tools(errors: _Errors, body: dict) -> None:
    tools = body.get("tools")
    if tools is not None and errors.check_type(tools, (list,), "tools"):
        if len(tools) > MAX_TOOLS:
            errors.add("tools", f"has more than {MAX_TOOLS} tools.")
        for index, tool in enumerate(tools[:MAX_TOOLS]):
            path = f"tools.{index}"
            if not errors.check_type(tool, (dict,), path):
                continue
            if not isinstance(tool.get("name"), str) or not tool["name"].strip():
                errors.add(f"{path}.name", "must be a non-empty string.")
            for field, kinds in (("input_schema", (dict,)), ("description", (str,))):
                if field in tool:
                    errors.check_type(tool[field], kinds, f"{path}.{field}")
    choice = body.get("tool_choice")
    if choice is not None and errors.check_type(choice, (dict,), "tool_choice"):
        if choice.get("type") not in TOOL_CHOICES:
            errors.add("tool_choice.type", f"must be one of: {', '.join(TOOL_CHOICES)}.")
        elif choice["type"] == "tool" and not isinstance(choice.get("name"), str):
            errors.add("tool_choice.name", "must be a string.")


def check_messages_request(body: Any) -> None:
    """Raise `ValidationError` (every bad field, by path) unless `body` is a Messages
    request the adapter can translate."""
    if not isinstance(body, dict):
        raise ValidationError({"": ["the body must be a JSON object."]})
    errors = _Errors()
    if "model" in body:
        errors.check_type(body["model"], (str,), "model")
    max_tokens = body.get("max_tokens")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        errors.add("max_tokens", "must be an integer >= 1.")
    _messages(errors, body.get("messages"))
    system = body.get("system")
    system_ok = system is not None and errors.check_type(system, (str, list), "system")
    if system_ok and isinstance(system, list):
        _blocks(errors, system, "system", ("text",))
    stops = body.get("stop_sequences")
    if stops is not None and errors.check_type(stops, (list,), "stop_sequences"):
        if len(stops) > MAX_STOP_SEQUENCES:
            errors.add("stop_sequences", f"has more than {MAX_STOP_SEQUENCES} entries.")
        for index, stop in enumerate(stops[:MAX_STOP_SEQUENCES]):
            errors.check_type(stop, (str,), f"stop_sequences.{index}")
    _number(errors, body, "temperature", 0, 1)
    _number(errors, body, "top_p", 0, 1)
    if body.get("top_k") is not None and (
        isinstance(body["top_k"], bool) or not isinstance(body["top_k"], int) or body["top_k"] < 0
    ):
        errors.add("top_k", "must be an integer >= 0.")
    for name in ("metadata", "thinking"):
        if body.get(name) is not None:
            errors.check_type(body[name], (dict,), name)
    if "stream" in body:
        errors.check_type(body["stream"], (bool,), "stream")
    _tools(errors, body)
    if errors.found:
        raise ValidationError(errors.found)


_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def anthropic_error(status: int, message: str) -> dict[str, Any]:
    """Anthropic's error body: the SDKs raise by status and read `error.message`."""
    kind = _ANTHROPIC_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def anthropic_exception_handler(exc, context):
    """The gateway's handler (problem fields, by status), rendered in Anthropic's shape;
    the field paths stay beside it in `errors`."""
    response = problem_exception_handler(exc, context)
    if response is not None and isinstance(response.data, dict):
        body = response.data
        errors, message = problem_message(body)
        response.data = anthropic_error(response.status_code, message)
        if errors:
            response.data["errors"] = errors
        response.content_type = "application/json"
    return response
