"""One verification: context, highlighted answer, explanations, iterations, costs, feedback."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.shortcuts import redirect, render

from verification.models import Feedback, UsageRecord, VerificationJob

from .. import job_detail
from ..highlight import numbered_segments, passages_with_evidence
from ..scoping import tenant_view

LATENCY_STAGES = ("queue", "detect", "mitigate")  # drawn in this order; "total" is separate


class FeedbackForm(forms.Form):
    outcome = forms.ChoiceField(choices=Feedback.OUTCOMES, widget=forms.RadioSelect)
    comment = forms.CharField(
        required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2})
    )


def _job(scope, public_id: str) -> VerificationJob:
    job_id = VerificationJob.parse_public_id(public_id)
    return scope.get_or_404(VerificationJob.objects.select_related("api_key"), pk=job_id)


def _labelled(job: VerificationJob, passages: list) -> list[tuple[str, list]]:
    ids = job.passage_ids if isinstance(job.passage_ids, list) else []
    return [(str(ids[i]) if i < len(ids) else str(i + 1), segs) for i, segs in enumerate(passages)]


@tenant_view(edit=True)
def detail(request, scope, public_id: str):
    job = _job(scope, public_id)
    form = FeedbackForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        Feedback.objects.create(job=job, tenant=scope.tenant, **form.cleaned_data)
        messages.success(request, "Thanks, your feedback was recorded.")
        return redirect("dashboard:verification", public_id=job.public_id)

    spans = list(job.spans.filter(iteration=0))  # later iterations are in mitigation steps
    answer = numbered_segments(job.response, spans)
    usage = UsageRecord.objects.filter(job=job).first()
    latency = job.latency_ms or {}
    total = latency.get("total") or sum(v for k, v in latency.items() if k != "total") or 0
    stages = [
        {"name": k, "ms": latency[k], "pct": (100 * latency[k] / total) if total else 0}
        for k in LATENCY_STAGES
        if k in latency
    ]
    return render(
        request,
        "dashboard/detail.html",
        {
            "nav": "history",
            "job": job,
            "spans": spans,
            "answer": answer,
            "final_differs": bool(job.final_response) and job.final_response != job.response,
            "passages": _labelled(job, passages_with_evidence(job.context, spans)),
            "mitigation": job_detail.mitigation(list(job.mitigation_steps.all())),
            "usage": usage,
            "per_model": sorted((usage.per_model or {}).items()) if usage else [],
            "latency_total": total,
            "stages": stages,
            "feedback": list(job.feedback.order_by("-created_at")),
            "form": form,
        },
    )
