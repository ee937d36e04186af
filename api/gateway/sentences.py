"""Verifying an answer sentence by sentence while it streams, off the streaming thread.

Each sentence, once complete (its end punctuation is followed by more text), is
checked against the context with the service's detector in a background thread,
so tokens are never held back; the spans come back with offsets into the whole
answer. Detection here is the detector alone (no query-type skip, no embedding
re-ranking): the final verdict of the verification job remains the authority.
"""

from __future__ import annotations

import dataclasses
from concurrent.futures import Future, ThreadPoolExecutor

from django.conf import settings

from engine import DetectionInput, PolicyDocument, detection_config, sentence_bounds, verify
from verification.tenant_config import service_detector


def _span(span, shift: int) -> dict:
    out = {
        "start": span.start + shift,
        "end": span.end + shift,
        "text": span.text,
        "confidence": round(float(span.confidence), 4),
        "label": span.label,
    }
    if span.evidence is not None:
        out["evidence"] = span.evidence.text
    return out


class SentenceChecker:
    """Feed it each choice's growing text; collect annotations for the chunks that follow."""

    def __init__(
        self, passages: tuple[str, ...], query: str, policy: PolicyDocument, threshold: float | None
    ) -> None:
        self.passages = passages
        self.query = query or None
        self.config = dataclasses.replace(
            detection_config(policy, threshold if threshold is not None else policy.threshold),
            classify_queries=False,
            explain_embeddings=False,
        )
        self.checked: dict[int, int] = {}  # choice index -> chars already sent to check
        self.pending: list[Future] = []
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="stream-check")

    def _check(self, index: int, start: int, sentence: str) -> dict:
        item = DetectionInput.build(list(self.passages), sentence, query=self.query)
        result = verify(item, self.config, service_detector())
        return {
            "index": index,
            "start": start,
            "end": start + len(sentence),
            "score": result.score,
            "detected": result.detected,
            "spans": [_span(s, start) for s in result.spans],
        }

    def feed(self, index: int, text: str, final: bool = False) -> None:
        """Queue the complete sentences of `text` not yet checked (all of them when `final`)."""
        done = self.checked.get(index, 0)
        for start, end in sentence_bounds(text):
            if start < done or (end == len(text) and not final):
                continue  # already checked, or still being written
            self.pending.append(self.pool.submit(self._check, index, start, text[start:end]))
            done = end
        self.checked[index] = done

    def ready(self, wait: bool = False) -> list[dict]:
        """Annotations finished so far, in order (all of them when `wait`)."""
        out = []
        while self.pending and (wait or self.pending[0].done()):
            out.append(self.pending.pop(0).result())
        return out

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


def sentence_checker(grounding, policy: PolicyDocument, options) -> SentenceChecker | None:
    """The checker for a stream, or None: no context, or annotations switched off."""
    if not grounding.passages or not settings.TRUTHLENS["GATEWAY_STREAM_ANNOTATIONS"]:
        return None
    return SentenceChecker(grounding.passages, grounding.query, policy, options.threshold)
