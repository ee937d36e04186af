"""Streamed chat completions: a `GatewayStream` rendered as OpenAI's SSE chunks.

Chunks reach the client as they arrive (tool-call deltas included); sentence
annotations ride on the next chunk sent, as `truthlens.annotations`. After the
upstream's last chunk, the remaining annotations come in a chunk of their own,
then (the policy's note for a late verdict, as the answer's last words, and) the
final chunk with the `truthlens` verdict, then `[DONE]`. The stream itself (relay,
sentence checks, verdict) is `verification.gateway.GatewayStream`, shared with
the Anthropic adapter.
"""

from __future__ import annotations

import json
import time
import uuid

from django.http import StreamingHttpResponse

from engine import LLMError
from verification.gateway import GatewayStream
from verification.llm_errors import plain_error

from .errors import late_error, openai_error


def sse(payload: dict | str) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload, default=str)
    return f"data: {data}\n\n".encode()


def upstream_failed(exc: LLMError) -> dict:
    """The error object of an upstream that failed mid-stream (both adapters send it)."""
    return openai_error(
        502,
        f"the upstream model failed: {plain_error(exc.__cause__ or exc)}",
        code="upstream_error",
    )


def event_stream(stream: GatewayStream, events) -> StreamingHttpResponse:
    """The streaming response of `events` (bytes), with the gateway's headers."""
    response = StreamingHttpResponse(events, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    grounding = stream.call.grounding
    response["X-TruthLens-Enabled"] = "true" if grounding.passages else "false"
    response["X-TruthLens-Detected"] = "pending" if grounding.passages else "unknown"
    response["X-TruthLens-Context-Status"] = grounding.status
    return response


def chat_stream_response(stream: GatewayStream) -> StreamingHttpResponse:
    chunk_id = "chatcmpl-" + uuid.uuid4().hex
    model = stream.call.model

    def ours(chunk: dict) -> dict:
        chunk.update(id=chunk_id, model=model)
        for choice in chunk.get("choices") or []:
            choice.pop("provider_specific_fields", None)
            (choice.get("delta") or {}).pop("provider_specific_fields", None)
        return chunk

    def events():
        try:
            yield from render()
        finally:
            stream.close()

    def render():
        try:
            for chunk in stream.chunks():
                if notes := stream.annotations():
                    chunk["truthlens"] = {"annotations": notes}
                yield sse(ours(chunk))
        except LLMError as exc:
            yield sse({"error": upstream_failed(exc)})
            yield sse("[DONE]")
            return
        if notes := stream.last_annotations():  # sent before the verdict is waited for
            yield sse(ours(_chunk(model, {"annotations": notes})))
        end = stream.finish()
        if end.refused:  # the SDK raises `APIError` on this event
            yield sse({"error": late_error(end.refused), "truthlens": end.truthlens})
            yield sse("[DONE]")
            return
        if end.note and not stream.call.json_mode:  # the note as the answer's last words
            for index, answer in sorted(stream.answers.items()):
                if answer.text and not answer.tool_calls:
                    yield sse(ours(_note_chunk(model, index, end.note)))
        yield sse(ours(_chunk(model, end.truthlens, stream.answers)))
        yield sse("[DONE]")

    return event_stream(stream, events())


def _note_chunk(model: str, index: int, note: str) -> dict:
    """The policy's "unverified" note, as the last words of choice `index`."""
    return {
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": index, "delta": {"content": f"\n\n{note}"}, "finish_reason": None}],
    }


def _chunk(model: str, truthlens: dict, answers: dict | None = None) -> dict:
    """A chunk with no text: annotations, or (with `answers`) the final verdict."""
    choices = [
        {"index": i, "delta": {}, "finish_reason": a.finish or "stop"}
        for i, a in sorted((answers or {}).items())
    ] or [{"index": 0, "delta": {}, "finish_reason": None}]
    return {
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": choices,
        "truthlens": truthlens,
    }
