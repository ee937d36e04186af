"""Running detection for claimed jobs: policy → engine → lightweight mitigation → storage.

This is the glue between Django rows and the pure engine; the Celery task
only claims jobs and hands them here.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from dataclasses import dataclass, field

from django.conf import settings

from .actions.complete import Outcome, complete_job, fail_job
from .engine import DetectionConfig, DetectionInput, DetectionResult, verify_batch
from .engine.detectors.registry import load_detector
from .engine.policy import PolicyDocument, Resolved, resolve
from .engine.query_types import classify_query
from .mitigation import lightweight_warning
from .models import VerificationJob
from .modes import choose_mode
from .policies import policy_for

log = logging.getLogger(__name__)


@dataclass
class _Planned:
    job: VerificationJob
    attempt: int
    item: DetectionInput
    policy: PolicyDocument
    resolved: Resolved
    query_type: str
    query_type_confidence: float
    mode: str
    mode_source: str
    timings: dict[str, int] = field(default_factory=dict)


def _plan(job: VerificationJob) -> _Planned:
    policy = policy_for(job.tenant)
    query_type, confidence = classify_query(job.query or "")
    resolved = resolve(
        policy,
        query_type=query_type,
        domain=str((job.metadata or {}).get("domain", "")),
        text=job.query or "",
        decision_name=job.requested_decision or None,
    )
    if job.requested_threshold is not None:
        resolved = Resolved(**{**resolved.__dict__, "threshold": job.requested_threshold})
    choice = choose_mode(job.requested_mode, policy, resolved.mode)
    item = DetectionInput.build(
        context=list(job.context or []),
        response=job.response,
        query=job.query or None,
        passage_ids=job.passage_ids,
    )
    return _Planned(
        job=job,
        attempt=job.attempts,
        item=item,
        policy=policy,
        resolved=resolved,
        query_type=query_type,
        query_type_confidence=confidence,
        mode=choice.mode,
        mode_source=choice.source,
    )


def _config(plan: _Planned) -> DetectionConfig:
    return DetectionConfig(
        threshold=plan.resolved.threshold,
        token_threshold=plan.policy.token_threshold,
        aggregation=plan.policy.aggregation,
        skip_query_types=tuple(plan.policy.skip_query_types),
    )


def process_jobs(jobs: list[VerificationJob]) -> None:
    """Detect, mitigate (lightweight) and store every claimed job; one batch per config."""
    plans: list[_Planned] = []
    for job in jobs:
        try:
            plans.append(_plan(job))
        except Exception as exc:  # a bad stored policy must fail this job, not the batch
            log.exception("planning failed for job %s", job.pk)
            fail_job(job.pk, job.attempts, "policy_error", str(exc)[:500])
    detector = load_detector(settings.TRUTHLENS["DETECTOR"])
    groups: dict[DetectionConfig, list[_Planned]] = defaultdict(list)
    for plan in plans:
        groups[_config(plan)].append(plan)
    for config, members in groups.items():
        _maybe_inject_fault(members)
        started = time.monotonic()
        known = _KnownTypes(
            {p.item.query: (p.query_type, p.query_type_confidence) for p in members}
        )
        results = verify_batch([p.item for p in members], config, detector, classifier=known)
        detect_ms = int((time.monotonic() - started) * 1000)
        for plan, result in zip(members, results, strict=True):
            plan.timings["detect"] = detect_ms
            _finish(plan, result)


class _KnownTypes:
    """Hands the pipeline the query types already computed for policy resolution."""

    def __init__(self, types: dict[str | None, tuple[str, float]]):
        self.types = types

    def classify_batch(self, queries: list[str | None]) -> list[tuple[str, float]]:
        return [self.types[q] for q in queries]


def _finish(plan: _Planned, result: DetectionResult) -> None:
    enabled = plan.resolved.enabled
    warning = lightweight_warning(result, plan.policy.warning_template) if enabled else ""
    outcome = Outcome(
        result=result,
        enabled=enabled,
        query_type=plan.query_type,
        query_type_confidence=plan.query_type_confidence,
        decision=plan.resolved.decision,
        mode=plan.mode,
        mode_source=plan.mode_source,
        final_response=plan.job.response,
        warning=warning,
        iterations=0,
        detect_ms=plan.timings.get("detect", 0),
    )
    complete_job(plan.job.pk, plan.attempt, outcome)


def _maybe_inject_fault(members: list[_Planned]) -> None:
    """Sleep in a job's first attempt when configured, so tests can kill a worker mid-task."""
    delay = settings.TRUTHLENS["FAULT_DETECT_SLEEP_SECONDS"]
    if delay and any(p.attempt == 1 for p in members):
        time.sleep(delay)
