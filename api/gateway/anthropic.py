"""Anthropic Messages requests and replies, translated by litellm's Anthropic adapter.

The request becomes an OpenAI chat request (litellm's
`LiteLLMAnthropicMessagesAdapter`), goes through the same forwarding and
verification as `/v1/chat/completions`, and the verified completion is
translated back into a Messages reply. Plain-text `document` blocks, which the
adapter drops, are inlined first as `<document>` text, so the upstream still
reads them and the context finder finds them.
"""

from __future__ import annotations

import copy
import uuid
from typing import Any

from litellm import ModelResponse
from litellm.llms.anthropic.pass_through.adapters.transformation import (
    LiteLLMAnthropicMessagesAdapter,
)

_adapter = LiteLLMAnthropicMessagesAdapter()


def _inline_document(block: dict[str, Any]) -> dict[str, Any]:
    source: dict[str, Any] = block["source"] if isinstance(block.get("source"), dict) else {}
    if block.get("type") != "document" or source.get("type") != "text":
        return block
    title = block.get("title")
    head = f'<document title="{title}">' if isinstance(title, str) else "<document>"
    return {"type": "text", "text": f"{head}\n{source.get('data', '')}\n</document>"}


def to_openai(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """(the OpenAI chat request, the adapter's tool-name mapping) of a Messages request."""
    body = copy.deepcopy({k: v for k, v in body.items() if k not in ("truthlens", "stream")})
    for message in body.get("messages") or []:
        if isinstance(message, dict) and isinstance(message.get("content"), list):
            message["content"] = [
                _inline_document(b) if isinstance(b, dict) else b for b in message["content"]
            ]
    request, tool_names = _adapter.translate_anthropic_to_openai(body)  # type: ignore[arg-type]
    return dict(request), tool_names


def to_anthropic(completion: dict[str, Any], tool_names: dict[str, str]) -> dict[str, Any]:
    """The Messages reply of a (verified) chat completion; `truthlens` is kept beside it."""
    truthlens = completion.pop("truthlens", None)
    reply = _adapter.translate_openai_response_to_anthropic(
        ModelResponse(**completion), tool_name_mapping=tool_names
    )
    dump = getattr(reply, "model_dump", None)
    out = dump(exclude_none=True) if dump is not None else dict(reply)
    # Anthropic's ids are `msg_...`; the upstream's `chatcmpl-...` would leak the translation.
    out["id"] = message_id()
    out["truthlens"] = truthlens
    return out


def message_id() -> str:
    return f"msg_{uuid.uuid4().hex}"
