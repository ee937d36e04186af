"""The detect stage: plan each claimed job, detect the batch, route each job on.

This is the glue between Django rows and the pure engine; the Celery task
only claims jobs and hands them here. Lightweight jobs, jobs with nothing
to fix and no-LLM repairs finish here; jobs whose mode needs an LLM (or whose
uncertain spans go to the cascade) move to the `mitigate` queue, with their
plan, when the tenant has an LLM configured (`JobPlan.next_step`).
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any

from django.conf import settings

from engine import (
    DetectionConfig,
    DetectionInput,
    DetectionResult,
    JobPlan,
    KnownTypes,
    Step,
    default_classifier,
    redetector,
    repair,
    verify_groups,
)
from observability import metrics
from observability.logcontext import bind
from tenants.models import Tenant

from ..actions.complete import Outcome, complete_job, fail_job
from ..actions.stages import hand_to_mitigation
from ..models import VerificationJob
from ..tenant_config import service_detector
from .codec import result_to_dict
from .ground import Grounding, ground
from .plan import plan_request

log = logging.getLogger(__name__)


@dataclass
class Planned:
    """A claimed job with its plan and the attempt that owns it."""

    job: VerificationJob
    attempt: int
    item: DetectionInput
    plan: JobPlan
    detect_ms: int = 0
    grounding: Grounding | None = None  # evidence retrieved for an answer without context

    def finish(self, result: DetectionResult, **outcome: Any) -> None:
        """Complete the job in this stage (the attempt must still own it)."""
        complete_job(
            self.job.pk,
            self.attempt,
            Outcome(
                plan=self.plan,
                result=result,
                detect_ms=self.detect_ms,
                grounding=self.job.grounding,
                **outcome,
            ),
        )

    @property
    def query_type(self) -> tuple[str | None, tuple[str, float]]:
        """(query, (type, confidence)): an entry of `KnownTypes`."""
        return self.item.query, (self.plan.query_type, self.plan.query_type_confidence)


def job_input(job: VerificationJob) -> DetectionInput:
    """The job's detection input; without a context, the evidence retrieved for it."""
    retrieved = [p["text"] for p in (job.grounding or {}).get("passages", [])]
    return DetectionInput.build(
        context=list(job.context or []) or retrieved,
        response=job.response,
        query=job.query or None,
        passage_ids=job.passage_ids,
    )


def process_jobs(jobs: list[VerificationJob]) -> None:
    """Detect every claimed job (one detector call for all of them) and route it on."""
    # One query for the batch, not one per job: the tenants' default models (none: no LLM).
    llms = dict(
        Tenant.objects.filter(pk__in={job.tenant_id for job in jobs})
        .exclude(default_model="")
        .values_list("pk", "default_model")
    )
    # One encoder pass for the whole batch's queries (they pick the policy decision).
    types = default_classifier().classify_batch([job.query or "" for job in jobs])
    planned: list[Planned] = []
    for job, (query_type, confidence) in zip(jobs, types, strict=True):
        try:
            plan = plan_request(job, query_type, confidence, llms.get(job.tenant_id, ""))
        except Exception as exc:  # a bad stored policy must fail this job, not the batch
            log.exception("planning failed for job %s", job.pk)
            fail_job(job.pk, job.attempts, "policy_error", str(exc)[:500])
            continue
        grounding = ground(job, plan)
        if grounding is not None:
            job.grounding = grounding.as_json()
        planned.append(Planned(job, job.attempts, job_input(job), plan, grounding=grounding))
    detector = service_detector()
    groups: dict[DetectionConfig, list[Planned]] = defaultdict(list)
    for p in planned:
        groups[p.plan.config].append(p)
    metrics.DETECT_BATCH.observe(len(planned))
    if not planned:
        return
    _maybe_inject_fault(planned)
    # One detector call for the whole micro-batch, whatever each job's policy: the windows
    # of every job are batched by length together (`verify_groups`), not group by group.
    started = time.monotonic()
    known = KnownTypes(dict(p.query_type for p in planned))
    outcomes = verify_groups(
        [([p.item for p in members], config) for config, members in groups.items()],
        detector,
        classifier=known,
    )
    detect_ms = int((time.monotonic() - started) * 1000)
    for members, results in zip(groups.values(), outcomes, strict=True):
        for p, result in zip(members, results, strict=True):
            p.detect_ms = detect_ms
            if p.grounding is not None and not p.grounding.context:
                reason = f"no evidence found: {p.grounding.summary()}"
                failed = p.grounding.failures()
                result = replace(result, reason=f"{failed} {reason}" if failed else reason)
            with bind(job_id=p.job.public_id, tenant_id=str(p.job.tenant_id)):
                route(p, result, has_llm=p.job.tenant_id in llms)
                log.info(
                    "detection finished",
                    extra={"status": result.status, "score": result.score, "ms": detect_ms},
                )


def route(p: Planned, result: DetectionResult, has_llm: bool) -> None:
    """Finish now, repair without an LLM, or hand over to the mitigate queue."""
    step = p.plan.next_step(result, has_llm)
    if step is Step.MITIGATE:
        hand_to_mitigation(
            p.job.pk, p.attempt, p.plan, result_to_dict(result), p.detect_ms, p.job.grounding
        )
    elif step is Step.REPAIR:
        _finish_with_repair(p, result)
    else:
        p.finish(
            result,
            final_response=p.job.response,
            final_score=result.score,
            warning=_with_coverage(p.plan.warning(result), p.grounding),
        )


def _finish_with_repair(p: Planned, result: DetectionResult) -> None:
    """A fixing mode without an LLM: edit the answer from its spans, then re-score it."""
    started = time.monotonic()
    redetect = redetector(p.plan.config, service_detector(), KnownTypes(dict([p.query_type])))
    repaired = repair(p.item, result, redetect=redetect)
    p.finish(
        result,
        final_response=repaired.final_response,
        final_score=repaired.final_score,
        warning=" ".join(w for w in repaired.warnings if w),
        diagnostics=tuple(repaired.diagnostics),
        iterations=1 if repaired.changes else 0,
        mitigate_ms=int((time.monotonic() - started) * 1000),
        mitigation=repaired,
    )


def _with_coverage(warning: str, grounding: Grounding | None) -> str:
    """Claims without evidence, and a search that failed, are said, never passed in silence."""
    if grounding is None or not grounding.claims:
        return warning
    failed = grounding.failures()
    notes = [warning, failed if failed not in warning else ""]
    if grounding.covered < len(grounding.claims):
        notes.append(f"Only {grounding.summary()}; the rest could not be checked.")
    return " ".join(n for n in notes if n).strip()


def _maybe_inject_fault(members: list[Planned]) -> None:
    """Sleep in a job's first attempt when configured, so tests can kill a worker mid-task."""
    delay = settings.TRUTHLENS["FAULT_DETECT_SLEEP_SECONDS"]
    if delay and any(p.attempt == 1 for p in members):
        time.sleep(delay)
