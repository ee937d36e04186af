"""Streaming chat completions: forward the upstream's chunks, annotate sentences, verdict last.

Chunks reach the client as they arrive (tool-call deltas included). With context,
each completed sentence is checked in the background and its spans ride on the
next chunk sent, as `truthlens.annotations`, so a UI can mark text as it appears.
After the upstream's last chunk, the remaining sentences' annotations are sent,
then the answer is verified as a job and a final chunk carries the `truthlens`
verdict (with `final_response` when mitigation changed the text). The upstream
is opened before the response starts, so its errors are still HTTP errors.
"""

from __future__ import annotations

import json
import time
import uuid

from django.http import StreamingHttpResponse

from engine import LLMError, forward_stream
from verification.llm_errors import plain_error
from verification.tenant_config import client_for

from .answers import checkable_text
from .errors import late_error, openai_error, upstream_error_response
from .json_answer import JsonAnswer, response_schema
from .params import wants_json
from .sentences import SentenceChecker, sentence_checker
from .verdicts import (
    Verdict,
    VerdictLate,
    finish_jobs,
    note_for_late,
    start_jobs,
    unverified,
    verdict_of,
)


def sse(payload: dict | str) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload, default=str)
    return f"data: {data}\n\n".encode()


class _Answer:
    """One choice's message as it is assembled from deltas."""

    def __init__(self) -> None:
        self.text = ""
        self.tool_calls = False
        self.finish: str | None = None


def open_stream(tenant_id, config, messages, params, extra_body):
    """(the upstream stream, its first chunk or None); `LLMError` when it does not open,
    so the client still gets an error response instead of a broken stream."""
    gen = forward_stream(client_for(tenant_id), config, messages, params, extra_body)
    try:
        return gen, next(gen)
    except StopIteration:
        return gen, None


def stream_response(
    tenant, api_key, config, messages, params, extra_body, options, grounding, policy
):
    try:
        gen, first = open_stream(tenant.pk, config, messages, params, extra_body)
    except LLMError as exc:
        return upstream_error_response(exc)
    chunk_id = "chatcmpl-" + uuid.uuid4().hex
    model = config.model

    def ours(chunk: dict) -> dict:
        chunk.update(id=chunk_id, model=model)
        for choice in chunk.get("choices") or []:
            choice.pop("provider_specific_fields", None)
            (choice.get("delta") or {}).pop("provider_specific_fields", None)
        return chunk

    def events():
        answers: dict[int, _Answer] = {}
        # sentences of raw JSON text would run across fields: a JSON answer gets the verdict only
        checker = None if wants_json(params) else sentence_checker(grounding, policy, options)
        try:
            yield from relay(answers, checker)
        finally:
            # The client went away (the server closes this generator) or we are done:
            # closing the upstream stops the provider's work and its billing with it.
            gen.close()
            if checker is not None:
                checker.close()

    def relay(answers: dict[int, _Answer], checker: SentenceChecker | None):
        call = None
        try:
            chunk = first
            while chunk is not None:
                for choice in chunk.get("choices") or []:
                    answer = answers.setdefault(choice.get("index", 0), _Answer())
                    delta = choice.get("delta") or {}
                    answer.text += delta.get("content") or ""
                    answer.tool_calls |= bool(delta.get("tool_calls") or delta.get("function_call"))
                    answer.finish = choice.get("finish_reason") or answer.finish
                    if checker is not None and delta.get("content"):
                        checker.feed(choice.get("index", 0), answer.text)
                if checker is not None and (notes := checker.ready()):
                    chunk["truthlens"] = {"annotations": notes}
                yield sse(ours(chunk))
                try:
                    chunk = next(gen)
                except StopIteration as stop:
                    call, chunk = stop.value, None
        except LLMError as exc:
            error = openai_error(
                502,
                f"the upstream model failed: {plain_error(exc.__cause__ or exc)}",
                code="upstream_error",
            )
            yield sse({"error": error})
            yield sse("[DONE]")
            return
        if checker is not None:
            for index, answer in answers.items():
                checker.feed(index, answer.text, final=True)
            if notes := checker.ready(wait=True):
                yield sse(ours(_chunk(model, {"annotations": notes})))
        truthlens, verdicts = _verdict(answers, call)
        try:
            note = note_for_late(verdicts, policy)
        except VerdictLate as exc:  # refused: the SDK raises `APIError` on this event
            error = late_error([v.truthlens["id"] for v in exc.late])
            yield sse({"error": error, "truthlens": truthlens})
            yield sse("[DONE]")
            return
        if note:
            truthlens.update(verified=False, note=note)
            if not wants_json(params):  # the note is shown as the answer's last words
                for index, answer in sorted(answers.items()):
                    if answer.text and not answer.tool_calls:
                        yield sse(ours(_note_chunk(model, index, note)))
        yield sse(ours(_chunk(model, truthlens, answers)))
        yield sse("[DONE]")

    def _verdict(answers: dict[int, _Answer], call) -> tuple[dict, list[Verdict]]:
        json_mode = wants_json(params)
        texts = {
            i: checkable_text({"content": a.text, "tool_calls": a.tool_calls or None}, json_mode)
            for i, a in sorted(answers.items())
        }
        reason = "context missing" if grounding.status == "missing" else "no context"
        todo = [i for i, (text, _) in texts.items() if text is not None]
        if not grounding.passages or not todo or call is None:
            first_why = next((why for _, why in texts.values() if why), "") or reason
            return unverified(first_why if grounding.passages else reason, grounding).truthlens, []
        jobs = start_jobs(
            tenant,
            api_key,
            grounding,
            [texts[i][0] or "" for i in todo],
            messages,
            model,
            options,
            call,
        )
        verdicts = [verdict_of(job, grounding) for job in finish_jobs(jobs)]
        if json_mode:  # spans and corrections in the terms of the JSON the client got
            for i, v in zip(todo, verdicts, strict=True):
                if answer := JsonAnswer.parse(answers[i].text):
                    answer.adapt(v.truthlens, response_schema(params))
        verdict = dict(verdicts[0].truthlens)
        if len(answers) > 1:
            verdict["choices"] = [
                {"index": i, **v.truthlens} for i, v in zip(todo, verdicts, strict=True)
            ]
            verdict["detected"] = any(v.truthlens.get("detected") for v in verdicts)
        return verdict, verdicts

    response = StreamingHttpResponse(events(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-TruthLens-Enabled"] = "true" if grounding.passages else "false"
    response["X-TruthLens-Detected"] = "pending" if grounding.passages else "unknown"
    response["X-TruthLens-Context-Status"] = grounding.status
    return response


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
