"""Streamed `/v1/messages`: a `GatewayStream` rendered as Anthropic's events.

litellm's `AnthropicStreamWrapper` turns the chunks into Anthropic's event
sequence. Sentence annotations ride on the events that follow a completed
sentence (`truthlens.annotations`, as on chat streams); the `message_delta`
event (stop reason and usage) is held until the answer is verified and carries
the `truthlens` verdict, so it comes before `message_stop`, where clients expect
the message to be complete.

The SDK's `stream.get_final_message()` keeps only known fields of `message_delta`,
but keeps whole content blocks: so the verdict also comes as a last text block,
empty (or the policy's "unverified" note) with a `truthlens` field, just before
`message_delta`.

The relay, the sentence checks and the verdict are the shared streaming core
(`verification.gateway.GatewayStream`); only the event format is Anthropic's here.
"""

from __future__ import annotations

import json

from litellm import ModelResponseStream
from litellm.llms.anthropic.pass_through.adapters.streaming_iterator import (
    AnthropicStreamWrapper,
)

from engine import LLMError
from verification.gateway import GatewayStream

from .errors import late_error
from .streaming import event_stream, upstream_failed


def _event(payload: dict) -> bytes:
    return f"event: {payload.get('type', 'message')}\ndata: {json.dumps(payload, default=str)}\n\n".encode()


def verdict_block(index: int, truthlens: dict, note: str) -> list[dict]:
    """The events of the last content block: a text block carrying the verdict, whose
    text is the policy's note when the verdict was late (else empty)."""
    block = {"type": "text", "text": "", "truthlens": truthlens}
    events = [{"type": "content_block_start", "index": index, "content_block": block}]
    if note:
        delta = {"type": "text_delta", "text": f"\n\n{note}"}
        events.append({"type": "content_block_delta", "index": index, "delta": delta})
    return [*events, {"type": "content_block_stop", "index": index}]


def messages_stream_response(stream: GatewayStream, tool_names: dict[str, str]):
    model = stream.call.model

    def events():
        try:
            yield from render()
        except LLMError as exc:
            yield _event({"type": "error", "error": upstream_failed(exc)})
        finally:
            stream.close()  # a client that went away stops the upstream too

    def upstream_chunks():
        for chunk in stream.chunks():
            yield ModelResponseStream(**chunk)

    def render():
        blocks = 0  # content blocks sent so far: the verdict block is the next
        for event in AnthropicStreamWrapper(upstream_chunks(), model, tool_names):
            if not isinstance(event, dict):
                continue
            if event.get("type") == "content_block_start":
                blocks = max(blocks, int(event.get("index", 0)) + 1)
            if event.get("type") == "message_delta":
                end = stream.finish()
                if end.refused:
                    yield _event({"type": "error", "error": late_error(end.refused)})
                    return
                truthlens = end.truthlens
                if end.annotations:  # the last sentences' annotations come with it
                    truthlens = {**truthlens, "annotations": end.annotations}
                yield from map(_event, verdict_block(blocks, truthlens, end.note))
                event["truthlens"] = truthlens
            elif notes := stream.annotations():
                event["truthlens"] = {"annotations": notes}
            yield _event(event)

    return event_stream(stream, events())
