"""Run the engine synchronously on pasted input under a tenant's policy ("test this policy").

Mirrors how a worker plans a job (`verification.processing.plan_job`): classify
the query, resolve the decision, build the detection config from the policy
and the decision's threshold, detect. Nothing is stored, billed or learned.
"""

from __future__ import annotations

from dataclasses import dataclass

from verification.detector_access import service_detector
from verification.engine import DetectionInput, verify
from verification.engine.policy import PolicyDocument, Resolved, resolve
from verification.engine.query_types import classify_query
from verification.processing import KnownTypes, detection_config


@dataclass
class TrialOutcome:
    resolved: Resolved
    result: object  # engine DetectionResult


def run_trial(
    document: PolicyDocument,
    passages: list[str],
    query: str,
    response: str,
    decision: str | None = None,
    domain: str = "",
) -> TrialOutcome:
    """Detect `response` against `passages` as a real request would be.

    Raises `KeyError` for an unknown decision name, `ValueError` for bad settings.
    """
    query_type, confidence = classify_query(query or "")
    resolved = resolve(
        document,
        query_type=query_type,
        domain=domain,
        text=query or "",
        decision_name=decision or None,
    )
    item = DetectionInput.build(passages, response, query or None)
    result = verify(
        item,
        detection_config(document, resolved.threshold),
        service_detector(),
        classifier=KnownTypes({item.query: (query_type, confidence)}),
    )
    return TrialOutcome(resolved=resolved, result=result)
