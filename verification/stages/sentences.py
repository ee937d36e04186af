"""The detect worker's check of a streamed answer's sentences (the gateway's annotations).

Detection here is the detector alone (no query-type skip, no embedding re-ranking):
the final verdict of the answer's verification job remains the authority. It runs
in the detect workers, on the interactive lane, so the web process never loads a
model (`verification/gateway/sentences.py` sends the sentences, `queue/sentences.py`
carries them).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from engine import DetectionInput, PolicyDocument, detection_config, verify
from verification.tenant_config import service_detector

from ..queue.sentences import store


def _span(span, shift: int) -> dict[str, Any]:
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


def annotate(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The annotations of the payload's sentences, offsets into each choice's whole text."""
    policy = PolicyDocument.model_validate(payload["policy"])
    threshold = payload.get("threshold")
    config = dataclasses.replace(
        detection_config(policy, threshold if threshold is not None else policy.threshold),
        classify_queries=False,
        explain_embeddings=False,
    )
    detector = service_detector()
    passages = list(payload["passages"])
    query = payload.get("query") or None
    out = []
    for index, start, sentence in payload["sentences"]:
        item = DetectionInput.build(passages, sentence, query=query)
        result = verify(item, config, detector)
        out.append(
            {
                "index": index,
                "start": start,
                "end": start + len(sentence),
                "score": result.score,
                "detected": result.detected,
                "spans": [_span(s, start) for s in result.spans],
            }
        )
    return out


def check_sentences(check_id: str, payload: dict[str, Any]) -> None:
    store(check_id, annotate(payload))


def warm_up() -> None:
    """Run one check at a worker's start (`workers/signals.py`), so a stream's first
    sentences do not wait for the detection pipeline's first use (its imports)."""
    annotate(
        {
            "policy": PolicyDocument().model_dump(mode="json"),
            "passages": ["The tower was built in 1889."],
            "query": "",
            "sentences": [[0, 0, "It was built in 1950."]],
        }
    )
