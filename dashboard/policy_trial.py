"""Run the engine synchronously on pasted input under a tenant's policy ("test this policy").

Resolves the request as a worker plans a job (`verification.engine.job_plan`):
classify the query, resolve the decision, build the detection config from the
policy and the decision's threshold, detect. Nothing is stored, billed or learned.
"""

from __future__ import annotations

from dataclasses import dataclass

from verification.engine import DetectionInput, verify
from verification.engine.job_plan import detection_config, resolve_request
from verification.engine.policy import PolicyDocument, Resolved
from verification.engine.query_types import KnownTypes, classify_query
from verification.tenant_config import service_detector


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
    resolved = resolve_request(
        document, query_type=query_type, domain=domain, text=query or "", decision=decision
    )
    item = DetectionInput.build(passages, response, query or None)
    result = verify(
        item,
        detection_config(document, resolved.threshold),
        service_detector(),
        classifier=KnownTypes({item.query: (query_type, confidence)}),
    )
    return TrialOutcome(resolved=resolved, result=result)
