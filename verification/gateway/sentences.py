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
        self.pending: list[str] = []  # check ids of complete sentences, in order
        self.ahead: dict[int, tuple[int, int, str]] = {}  # choice -> last sentence sent ahead

    def feed(self, index: int, text: str, final: bool = False) -> None:
        """Send the complete sentences of `text` not yet sent (all of them when `final`).

        A last sentence that already ends with its punctuation is sent ahead, before the
        next token tells whether it is complete: when it is (the next text starts a new
        sentence, or the answer ends), its check stands and its annotation comes a token
        earlier; when the sentence goes on ("3." then "5 metres"), that check is dropped."""
        done = self.checked.get(index, 0)
        ahead = self.ahead.pop(index, None)
        sentences = []
        for start, end in sentence_bounds(text):
            if start < done:
                continue  # already sent
            complete = end < len(text) or final
            if ahead is not None and ahead[:2] == (start, end):
                if complete:  # the sentence sent ahead is complete as it was sent
                    self.pending.append(ahead[2])
                    done = end
                else:
                    self.ahead[index] = ahead  # still the last words: keep waiting
                ahead = None
                continue
            if not complete:  # still being written; sent ahead when it may be complete
                ends = text[end - 1] in ".!?"
                if ends and (check_id := self._send([(index, start, text[start:end])])):
                    self.ahead[index] = (start, end, check_id)
                break
            sentences.append((index, start, text[start:end]))
            done = end
        self.checked[index] = done
        if sentences and (check_id := self._send(sentences)) is not None:
            self.pending.append(check_id)

    def _send(self, sentences: list[tuple[int, int, str]]) -> str | None:
        return lane.submit({**self.payload, "sentences": sentences}, self.wait_s + 5)

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
