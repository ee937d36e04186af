"""Labels: a reviewer's judgement stored with who and when; a second reviewer adds a row
(a disagreement is kept, never overwritten); consensus and agreement rates."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from .models import CORRECT, HALLUCINATED, Label


class InvalidLabel(ValueError):
    pass


@dataclass(frozen=True)
class Agreed:
    label: int  # 1 = hallucinated
    spans: list[dict]


def clean_spans(response: str, spans) -> list[dict]:
    """Reviewer spans as sorted, merged, in-range `{start, end, text}`; `InvalidLabel` else."""
    if not isinstance(spans, list):
        raise InvalidLabel("spans must be a list of {start, end}")
    ranges = []
    for span in spans:
        try:
            start, end = int(span["start"]), int(span["end"])
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidLabel("each span needs integer start and end") from exc
        if not 0 <= start < end <= len(response):
            raise InvalidLabel(f"span {start}-{end} is outside the answer")
        ranges.append((start, end))
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [{"start": s, "end": e, "text": response[s:e]} for s, e in merged]


def save_label(job, reviewer, outcome: str, spans) -> Label:
    """This reviewer's label of `job` (their earlier one is replaced; others' are kept)."""
    if outcome not in (CORRECT, HALLUCINATED):
        raise InvalidLabel("outcome must be correct or hallucinated")
    cleaned = clean_spans(job.response, spans or [])
    if outcome == CORRECT:
        cleaned = []  # a correct answer has nothing hallucinated to mark
    with transaction.atomic():
        label, _ = Label.objects.update_or_create(
            job=job,
            reviewer=reviewer,
            defaults={
                "tenant_id": job.tenant_id,
                "outcome": outcome,
                "spans": cleaned,
                "updated_at": timezone.now(),
            },
        )
    return label


def consensus(labels: list[Label]) -> Agreed | None:
    """The answer's label when every reviewer gave the same outcome; None on disagreement."""
    outcomes = {label.outcome for label in labels}
    if len(outcomes) != 1:
        return None
    outcome = outcomes.pop()
    spans = labels[0].spans if outcome == HALLUCINATED else []
    return Agreed(int(outcome == HALLUCINATED), list(spans))


@dataclass(frozen=True)
class Agreement:
    double_labelled: int  # answers with two or more reviewers
    agreeing: int

    @property
    def rate(self) -> float | None:
        return self.agreeing / self.double_labelled if self.double_labelled else None


def reviewer_agreement(labels) -> Agreement:
    """Inter-reviewer agreement: of the answers labelled by two or more reviewers, the share
    where all gave the same outcome."""
    by_job: dict = defaultdict(set)
    counts: dict = defaultdict(int)
    for job_id, outcome in labels.values_list("job_id", "outcome"):
        by_job[job_id].add(outcome)
        counts[job_id] += 1
    double = [j for j, n in counts.items() if n >= 2]
    return Agreement(len(double), sum(1 for j in double if len(by_job[j]) == 1))
