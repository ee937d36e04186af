"""Run the engine synchronously on pasted input under a policy ("test this policy").

The policy is the saved one or a draft: the editor's unsaved contents, so a change
can be tried before it is published. Resolves the request as a worker plans a job
(`engine.job_plan`): classify the query, resolve the decision, build
the detection config from the policy and the decision's threshold, detect.
Nothing is stored, billed or learned.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import (
    DetectionInput,
    DetectionResult,
    KnownTypes,
    PolicyDocument,
    Resolved,
    classify_query,
    detection_config,
    resolve_request,
    verify,
)
from verification.tenant_config import available_to, service_detector

from .actions import current_document, current_version
from .submit import read_submission
from .yaml_io import PolicyImportError, dump_yaml, load_yaml


@dataclass
class TrialOutcome:
    resolved: Resolved
    result: DetectionResult


@dataclass
class TrialPolicy:
    """The policy a trial runs under: a document, or the reasons a draft cannot run."""

    document: PolicyDocument | None
    draft_yaml: str = ""  # carried in the test form while testing a draft
    problems: tuple[str, ...] = ()

    @property
    def is_draft(self) -> bool:
        return bool(self.draft_yaml) or bool(self.problems)


def draft_from_editor(tenant, post) -> TrialPolicy:
    """The editor's unsaved form (`post`) read as the editor would save it."""
    sub = read_submission(
        post, current_document(tenant), current_version(tenant), available_to(tenant)
    )
    if sub.document is None:
        return TrialPolicy(None, problems=tuple(sub.problems))
    return TrialPolicy(sub.document, draft_yaml=dump_yaml(sub.document))


def trial_policy(tenant, draft_yaml: str) -> TrialPolicy:
    """The draft carried by the test form, else the saved policy."""
    if not draft_yaml.strip():
        return TrialPolicy(current_document(tenant))
    try:
        return TrialPolicy(load_yaml(draft_yaml), draft_yaml=draft_yaml)
    except PolicyImportError as exc:
        return TrialPolicy(None, draft_yaml=draft_yaml, problems=tuple(exc.messages))


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
