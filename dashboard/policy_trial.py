"""Run the engine synchronously on pasted input under a tenant's policy ("test this policy")."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from verification.engine.policy import PolicyDocument, Resolved, resolve


def _detector(spec: str):
    """The deployment's detector (loaded once per process by the registry)."""
    try:
        from verification.engine.detectors.registry import load_detector
    except ImportError:  # registry not installed yet: only the model-free detector can run
        if spec != "lexical":
            raise
        from verification.engine import LexicalDetector

        return LexicalDetector()
    return load_detector(spec)


@dataclass
class TrialOutcome:
    resolved: Resolved
    result: object  # engine DetectionResult
    detected: bool | None


def run_trial(
    document: PolicyDocument,
    passages: list[str],
    query: str,
    response: str,
    decision: str | None = None,
) -> TrialOutcome:
    """Detect with the policy's settings, then apply the matching decision's threshold.

    The decision depends on the query type, which the engine classifies, so
    detection runs first and the decision's threshold is applied to its score.
    Raises `KeyError` for an unknown decision name, `ValueError` for bad settings.
    """
    from verification.engine import DetectionConfig, DetectionInput, verify

    config = DetectionConfig(
        threshold=document.threshold,
        token_threshold=document.token_threshold,
        aggregation=document.aggregation,
        skip_query_types=tuple(document.skip_query_types),
    )
    item = DetectionInput.build(passages, response, query or None)
    result = verify(item, config, _detector(settings.TRUTHLENS["DETECTOR"]))
    resolved = resolve(
        document, result.query_type, text=query or "", decision_name=decision or None
    )
    detected = None if result.score is None else result.score >= resolved.threshold
    return TrialOutcome(resolved=resolved, result=result, detected=detected)
