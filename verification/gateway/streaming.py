"""The one streaming core of the gateway: relay the upstream's chunks, annotate, verdict last.

`GatewayStream` is what `run_call` returns for a streamed call, once the upstream
has opened (so its errors are still HTTP errors). Both adapters drive it the same
way and only render its output in their own event format
(`api/gateway/streaming.py` for OpenAI's chunks, `api/gateway/anthropic_stream.py`
for Anthropic's events):

    for chunk in stream.chunks():          # the upstream's chunks, as dicts
        notes = stream.annotations()       # finished sentence annotations (never blocks)
        ...render chunk (+ notes)...
    notes = stream.last_annotations()      # the last sentences' (waits), before the verdict
    end = stream.finish()                  # the verdict (waits); `end.annotations`: any left
    ...render end...
    stream.close()                         # always (a client that went away stops the upstream)

`chunks()` raises `LLMError` when the upstream fails mid-stream.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

from engine import LLMCall, LLMError

from .answers import checkable_text
from .call import GatewayCall
from .json_answer import JsonAnswer, response_schema
from .sentences import SentenceChecker, sentence_checker
from .verdicts import Verdict, VerdictLate, combined, note_for_late, verify_answers


@dataclass
class Answer:
    """One choice's message as it is assembled from deltas."""

    text: str = ""
    tool_calls: bool = False
    finish: str | None = None


@dataclass
class StreamEnd:
    """What follows the upstream's last chunk: the last annotations, then the verdict.

    `refused` holds the verification ids when a verdict was late and the policy refuses
    unverified answers (the stream then ends with an error); else `note` is the policy's
    note for a late verdict ("" when none was late)."""

    annotations: list[dict[str, Any]]
    truthlens: dict[str, Any]
    verdicts: list[Verdict]
    note: str = ""
    refused: list[str] = field(default_factory=list)


class GatewayStream:
    def __init__(
        self, call: GatewayCall, upstream: Generator[dict, None, LLMCall], first: dict | None
    ) -> None:
        self.call = call
        self._upstream = upstream
        self._first = first
        self._done = first is None
        self.answers: dict[int, Answer] = {}
        self.upstream_call: LLMCall | None = None
        self.checker: SentenceChecker | None = sentence_checker(call)

    def chunks(self) -> Iterator[dict[str, Any]]:
        """The upstream's chunks as they arrive; each choice's text is kept and its
        completed sentences are sent to be checked."""
        chunk = self._first
        while chunk is not None:
            for choice in chunk.get("choices") or []:
                index = choice.get("index", 0)
                answer = self.answers.setdefault(index, Answer())
                delta = choice.get("delta") or {}
                answer.text += delta.get("content") or ""
                answer.tool_calls |= bool(delta.get("tool_calls") or delta.get("function_call"))
                answer.finish = choice.get("finish_reason") or answer.finish
                if self.checker is not None and delta.get("content"):
                    self.checker.feed(index, answer.text)
            yield chunk
            chunk = self._next()

    def _next(self) -> dict[str, Any] | None:
        try:
            return next(self._upstream)
        except StopIteration as stop:
            self.upstream_call = stop.value or self.upstream_call
            self._done = True
            return None

    def annotations(self) -> list[dict[str, Any]]:
        """The sentence annotations finished since the last call (never blocks)."""
        return self.checker.ready() if self.checker is not None else []

    def drain(self) -> None:
        """Read the upstream to its end (the usage chunk follows the stop reason)."""
        while not self._done:
            try:
                self._next()
            except LLMError:
                return

    def last_annotations(self) -> list[dict[str, Any]]:
        """After the last chunk: the remaining sentences' annotations, waited for (up to
        `TRUTHLENS_GATEWAY_WAIT_SECONDS`), so they can go out before the verdict."""
        self.drain()
        if self.checker is None:
            return []
        for index, answer in self.answers.items():
            self.checker.feed(index, answer.text, final=True)
        return self.checker.ready(wait=True)

    def finish(self) -> StreamEnd:
        """After the last chunk: the annotations not yet taken (`last_annotations`), then
        every choice verified as a job and waited for (`TRUTHLENS_GATEWAY_WAIT_SECONDS`)."""
        notes = self.last_annotations()
        call, json_mode = self.call, self.call.json_mode
        answers = [a for _, a in sorted(self.answers.items())]
        texts = [
            checkable_text({"content": a.text, "tool_calls": a.tool_calls or None}, json_mode)
            for a in answers
        ]
        verdicts = verify_answers(call, texts, self.upstream_call)
        if json_mode:  # spans and corrections in the terms of the JSON the client got
            for answer, verdict in zip(answers, verdicts, strict=True):
                parsed = JsonAnswer.parse(answer.text) if verdict.job is not None else None
                if parsed is not None:
                    parsed.adapt(verdict.truthlens, response_schema(call.params))
        truthlens = combined(verdicts, call.grounding)
        try:
            note = note_for_late(verdicts, call.policy)
        except VerdictLate as exc:
            ids = [v.truthlens["id"] for v in exc.late]
            return StreamEnd(notes, truthlens, verdicts, refused=ids)
        if note:
            truthlens.update(verified=False, note=note)
        return StreamEnd(notes, truthlens, verdicts, note)

    def close(self) -> None:
        """Stop the upstream (and its billing) when the client went away or we are done."""
        self._upstream.close()
