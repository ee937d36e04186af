"""Streaming `/v1/messages`: the upstream's OpenAI chunks as Anthropic events, verified as they go.

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
"""

from __future__ import annotations

import json
from typing import Any

from django.http import StreamingHttpResponse
from litellm import ModelResponseStream
from litellm.llms.anthropic.pass_through.adapters.streaming_iterator import (
    AnthropicStreamWrapper,
)

from engine import LLMError
from verification.llm_errors import plain_error

from .answers import checkable_text
from .errors import late_error, openai_error, upstream_error_response
from .sentences import sentence_checker
from .streaming import open_stream
from .verdicts import (
    Verdict,
    VerdictLate,
    finish_jobs,
    note_for_late,
    start_jobs,
    unverified,
    verdict_of,
)


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


def messages_stream_response(
    tenant, api_key, config, messages, params, extra_body, options, grounding, policy,
    tool_names,
):  # fmt: skip
    try:
        gen, first = open_stream(tenant.pk, config, messages, params, extra_body)
    except LLMError as exc:
        return upstream_error_response(exc)
    state: dict[str, Any] = {"text": "", "tool_calls": False, "call": None}
    checker = sentence_checker(grounding, policy, options)

    def upstream_chunks():
        chunk = first
        while chunk is not None:
            for choice in chunk.get("choices") or []:
                delta = choice.get("delta") or {}
                state["text"] += delta.get("content") or ""
                state["tool_calls"] |= bool(delta.get("tool_calls"))
            if checker is not None and state["text"]:
                checker.feed(0, state["text"])
            yield ModelResponseStream(**chunk)
            try:
                chunk = next(gen)
            except StopIteration as stop:
                state["call"], chunk = stop.value or state["call"], None

    def drain() -> None:
        """Read the upstream to its end (the usage chunk follows the stop reason)."""
        while state["call"] is None:
            try:
                next(gen)
            except StopIteration as stop:
                state["call"] = stop.value
            except LLMError:
                return

    def verdict() -> Verdict:
        drain()
        text, why = checkable_text(
            {"content": state["text"], "tool_calls": state["tool_calls"] or None}, False
        )
        if not grounding.passages or text is None or state["call"] is None:
            reason = why or ("context missing" if grounding.status == "missing" else "no context")
            return unverified(reason, grounding)
        jobs = start_jobs(
            tenant, api_key, grounding, [text], messages, config.model, options, state["call"]
        )
        return verdict_of(finish_jobs(jobs)[0], grounding)

    def events():
        blocks = 0  # content blocks sent so far: the verdict block is the next
        try:
            for event in AnthropicStreamWrapper(upstream_chunks(), config.model, tool_names):
                if not isinstance(event, dict):
                    continue
                if event.get("type") == "content_block_start":
                    blocks = max(blocks, int(event.get("index", 0)) + 1)
                if event.get("type") == "message_delta":
                    checked = verdict()
                    try:
                        note = note_for_late([checked], policy)
                    except VerdictLate:
                        error = late_error([checked.truthlens["id"]])
                        yield _event({"type": "error", "error": error})
                        return
                    truthlens = checked.truthlens
                    if checker is not None:  # the last sentences' annotations come with it
                        checker.feed(0, state["text"], final=True)
                        if notes := checker.ready(wait=True):
                            truthlens = {**truthlens, "annotations": notes}
                    yield from map(_event, verdict_block(blocks, truthlens, note))
                    event["truthlens"] = truthlens
                elif checker is not None and (notes := checker.ready()):
                    event["truthlens"] = {"annotations": notes}
                yield _event(event)
        except LLMError as exc:
            error = openai_error(
                502,
                f"the upstream model failed: {plain_error(exc.__cause__ or exc)}",
                code="upstream_error",
            )
            yield _event({"type": "error", "error": error})
        finally:
            gen.close()  # a client that went away stops the upstream too
            if checker is not None:
                checker.close()

    response = StreamingHttpResponse(events(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-TruthLens-Enabled"] = "true" if grounding.passages else "false"
    response["X-TruthLens-Detected"] = "pending" if grounding.passages else "unknown"
    response["X-TruthLens-Context-Status"] = grounding.status
    return response
