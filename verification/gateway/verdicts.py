"""Verifying the answers of one upstream reply: a job per checkable choice, waited on together.

A verdict that is not ready after `TRUTHLENS_GATEWAY_WAIT_SECONDS` never goes out
silently: it says `verified: false, reason: "timeout"` (and `X-TruthLens-Verified:
false`), and the policy's `on_unverified` decides: pass the answer with its
`unverified_note`, or refuse it (`VerdictLate`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from django.conf import settings

from engine import LLMCall, PolicyDocument, marker_ids, rewrites_answer

from ..actions.create import NewVerification
from ..actions.gateway import verify_reply
from ..job_details import jobs_with_details, wait_until_final
from ..models import VerificationJob
from ..serializers import VerificationSerializer, verification_headers
from .call import GatewayCall, Grounding

TRUTHLENS_FIELDS = (
    "id",
    "status",
    "verification_status",
    "score",
    "final_score",
    "detected",
    "risk_level",
    "mode",
    "iterations",
    "warning",
    "final_response",
    "spans",
)


@dataclass
class Verdict:
    """One choice's verdict: its job (None when nothing was verified) and the `truthlens` dict."""

    truthlens: dict
    job: VerificationJob | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def content(self, original: str, rewritable: bool) -> str:
        """The text to return: mitigated prose, or the original when it must stay as sent."""
        job = self.job
        if job is None or not rewritable or not job.is_final:
            return original
        content = job.final_response or original
        if job.warning and not rewrites_answer(job.mode):
            content = f"{content}\n\n{job.warning}"
        return content

    @property
    def late(self) -> bool:
        """Verified, but the verdict did not arrive in time."""
        return self.truthlens.get("reason") == TIMED_OUT


TIMED_OUT = "timeout"


class VerdictLate(Exception):
    """A verdict is late and the policy refuses unverified answers."""

    def __init__(self, late: list[Verdict]):
        super().__init__("the answer could not be verified in time")
        self.late = late


def unverified(reason: str, grounding: Grounding) -> Verdict:
    return Verdict(
        {"verified": False, "reason": reason, "detected": None, "context": grounding.describe()},
        headers={
            "X-TruthLens-Enabled": "false",
            "X-TruthLens-Detected": "unknown",
            "X-TruthLens-Verified": "false",
        },
    )


def verdict_of(job: VerificationJob, grounding: Grounding) -> Verdict:
    data = VerificationSerializer(job).data
    truthlens = {k: data[k] for k in TRUTHLENS_FIELDS}
    truthlens["verified"] = job.is_final
    truthlens["context"] = grounding.describe()
    headers = dict(verification_headers(job))
    headers["X-TruthLens-Verified"] = "true" if job.is_final else "false"
    if not job.is_final:
        truthlens["reason"] = TIMED_OUT
        truthlens["waited_seconds"] = settings.TRUTHLENS["GATEWAY_WAIT_SECONDS"]
        headers["X-TruthLens-Unverified-Reason"] = TIMED_OUT
    return Verdict(truthlens, job, headers)


def note_for_late(verdicts: list[Verdict], policy: PolicyDocument) -> str:
    """The policy's note to show when a verdict is late ("" when none is), set on each
    late verdict as `truthlens.note`; raises `VerdictLate` when the policy refuses."""
    late = [v for v in verdicts if v.late]
    if not late:
        return ""
    if policy.on_unverified == "refuse":
        raise VerdictLate(late)
    for verdict in late:
        verdict.truthlens["note"] = policy.unverified_note
    return policy.unverified_note


def start_jobs(call: GatewayCall, answers: list[str], upstream: LLMCall) -> list[VerificationJob]:
    """A verification per answer, on the interactive lane; the upstream call is billed
    once, to the first (`actions.gateway.verify_reply`)."""
    grounding, options = call.grounding, call.options
    requests = [
        NewVerification(
            context=list(grounding.passages),
            passage_ids=marker_ids(grounding.passages),
            response=answer,
            query=grounding.query,
            messages=call.messages,
            model=call.model,
            mode=options.mode,
            decision=options.decision,
            threshold=options.threshold,
            metadata={"source": "gateway", "context": grounding.status, "choice": i},
            interactive=True,
        )
        for i, answer in enumerate(answers)
    ]
    return verify_reply(call.tenant, call.api_key, requests, call.model, upstream)


def finish_jobs(jobs: list[VerificationJob]) -> list[VerificationJob]:
    """Wait for the jobs (one shared deadline), then re-read them with their details."""
    deadline = time.monotonic() + settings.TRUTHLENS["GATEWAY_WAIT_SECONDS"]
    for job in jobs:
        wait_until_final(job, max(0.0, deadline - time.monotonic()))
    by_pk = jobs_with_details().in_bulk([j.pk for j in jobs])
    return [by_pk[j.pk] for j in jobs]


def verify_answers(
    call: GatewayCall, texts: list[tuple[str | None, str]], upstream: LLMCall | None
) -> list[Verdict]:
    """A verdict per choice (`texts`: each choice's checkable text, or None and why not):
    its job's, waited on, or unverified with the reason. No context, or no finished
    upstream call (a stream cut short), verifies nothing."""
    grounding = call.grounding
    verdicts: list[Verdict | None] = [None] * len(texts)
    todo = [i for i, (text, _) in enumerate(texts) if text is not None]
    if grounding.passages and upstream is not None and todo:
        jobs = start_jobs(call, [texts[i][0] or "" for i in todo], upstream)
        for i, job in zip(todo, finish_jobs(jobs), strict=True):
            verdicts[i] = verdict_of(job, grounding)
    return [
        v or unverified(texts[i][1] or grounding.reason, grounding) for i, v in enumerate(verdicts)
    ]


def combined(verdicts: list[Verdict], grounding: Grounding) -> dict:
    """The reply's `truthlens` object: the first choice's, with every choice's when there
    are several (`detected` is then any of them)."""
    first = verdicts[0] if verdicts else unverified("no choices", grounding)
    truthlens = dict(first.truthlens)
    if len(verdicts) > 1:
        truthlens["choices"] = [{"index": i, **v.truthlens} for i, v in enumerate(verdicts)]
        truthlens["detected"] = any(v.truthlens.get("detected") for v in verdicts)
    return truthlens
