"""Annotating a streamed answer sentence by sentence, by the detect workers.

Each sentence, once complete (its end punctuation is followed by more text), is
sent with the ones completed in the same chunk to the interactive detect lane
(`queue/sentences.py`; the worker's side is `stages/sentences.py`). The web
process loads no model and runs no thread for it: between chunks the stream
reads the results that have arrived (one Redis read, never blocking the
tokens); after the upstream's last token it waits for the rest through the wait
channel, up to `TRUTHLENS_GATEWAY_WAIT_SECONDS`. Spans come back with offsets
into the whole answer. The final verdict of the verification job remains the
authority.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings

from engine import sentence_bounds

from ..queue import sentences as lane
from .call import GatewayCall


class SentenceChecker:
    """Feed it each choice's growing text; collect annotations for the chunks that follow."""

    def __init__(self, call: GatewayCall) -> None:
        self.payload: dict[str, Any] = {
            "passages": list(call.grounding.passages),
            "query": call.grounding.query or "",
            "policy": call.policy.model_dump(mode="json"),
            "threshold": call.options.threshold,
        }
        self.wait_s = float(settings.TRUTHLENS["GATEWAY_WAIT_SECONDS"])
        self.checked: dict[int, int] = {}  # choice index -> chars already sent to check
        self.pending: list[str] = []  # check ids, in the order sent

    def feed(self, index: int, text: str, final: bool = False) -> None:
        """Send the complete sentences of `text` not yet sent (all of them when `final`)."""
        done = self.checked.get(index, 0)
        sentences = []
        for start, end in sentence_bounds(text):
            if start < done or (end == len(text) and not final):
                continue  # already sent, or still being written
            sentences.append((index, start, text[start:end]))
            done = end
        self.checked[index] = done
        if sentences:
            check_id = lane.submit({**self.payload, "sentences": sentences}, self.wait_s + 5)
            if check_id is not None:
                self.pending.append(check_id)

    def ready(self, wait: bool = False) -> list[dict[str, Any]]:
        """Annotations arrived so far, in order (with `wait`, all of them that arrive in time)."""
        out: list[dict[str, Any]] = []
        if not self.pending:
            return out
        if wait:
            deadline = time.monotonic() + self.wait_s
            for check_id in self.pending:
                result = lane.wait(check_id, deadline - time.monotonic())
                out.extend(result or [])
            self.pending = []
            return out
        for result in lane.fetch(self.pending):
            if result is None:
                break
            out.extend(result)
            self.pending.pop(0)
        return out


def sentence_checker(call: GatewayCall) -> SentenceChecker | None:
    """The checker for a stream, or None: no context, annotations switched off, or a JSON
    answer (a sentence of raw JSON text would run across fields: it gets the verdict only)."""
    if (
        not call.grounding.passages
        or call.json_mode
        or not settings.TRUTHLENS["GATEWAY_STREAM_ANNOTATIONS"]
    ):
        return None
    return SentenceChecker(call)
