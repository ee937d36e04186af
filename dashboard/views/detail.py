"""One verification: context, highlighted answer, explanations, iterations, costs, feedback."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse

from verification.actions.feedback import record_feedback
from verification.models import Feedback, UsageRecord, VerificationJob
from verification.serializers import evidence_place

from .. import job_detail
from ..answer_coverage import answer_coverage, split_answer
from ..highlight import numbered_segments, passages_with_evidence
from ..scoping import tenant_view

LATENCY_STAGES = ("queue", "detect", "mitigate")  # drawn in this order; "total" is separate


class FeedbackForm(forms.Form):
    outcome = forms.ChoiceField(choices=Feedback.OUTCOMES, widget=forms.RadioSelect)
    comment = forms.CharField(
        required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2})
    )


def _per_model(usage: UsageRecord | None) -> list[tuple[str, dict]]:
    """Per-model calls, tokens and what they cost whoever paid (service or own key)."""
    if usage is None:
        return []
    rows = []
    for name, m in sorted((usage.per_model or {}).items()):
        if isinstance(m, dict):
            total = float(m.get("cost_usd") or 0) + float(m.get("tenant_cost_usd") or 0)
            rows.append((name, {**m, "total_cost_usd": total}))
    return rows


def _job(scope, public_id: str) -> VerificationJob:
    job_id = VerificationJob.parse_public_id(public_id)
    return scope.get_or_404(VerificationJob.objects.select_related("api_key"), pk=job_id)


def _labelled(job: VerificationJob, passages: list) -> list[tuple[str, list]]:
    ids = job.passage_ids if isinstance(job.passage_ids, list) else []
    refs = _refs(job)
    labels = [
        refs[i].get("document_name") or refs[i].get("url") if i < len(refs) else None
        for i in range(len(passages))
    ]
    return [
        (labels[i] or (str(ids[i]) if i < len(ids) else str(i + 1)), segs)
        for i, segs in enumerate(passages)
    ]


def _refs(job: VerificationJob) -> list[dict]:
    """Where each passage of a job checked against a knowledge base (or the web) came from."""
    return (job.grounding or {}).get("passages") or []


def _context(job: VerificationJob) -> list[str]:
    return list(job.context or []) or [ref.get("text", "") for ref in _refs(job)]


def _link_spans(job: VerificationJob, spans: list) -> None:
    """`span.source_link`: the document passage (or web page) its evidence is in."""
    refs = _refs(job)
    for span in spans:
        span.source_link = span.source_name = None
        i = span.evidence_passage
        if i is None or not 0 <= i < len(refs):
            continue
        ref = refs[i]
        if ref.get("kind") == "passage":
            start = ref["start"] + (span.evidence_start or 0)
            end = ref["start"] + (span.evidence_end or 0)
            url = reverse(
                "dashboard:knowledge-document", args=[ref["knowledge_base"], ref["document"]]
            )
            version = ref.get("document_version")
            cited = f"&version={version}" if version else ""
            span.source_link = f"{url}?start={start}&end={end}{cited}#evidence"
            span.source_name = ref["document_name"] + _place(
                evidence_place(ref.get("location") or {}, span.evidence_start or 0)
            )
        elif ref.get("kind") == "web" and str(ref.get("url", "")).startswith(
            ("https://", "http://")
        ):
            # a search provider's URL: linked only when it is a web address (no javascript:)
            span.source_link, span.source_name = ref["url"], ref.get("title") or ref["url"]


def _place(where: dict) -> str:
    """ ", page 2" / ", slide 3" / ", Guide › Paris": where the evidence sits in the file."""
    if "page" in where:
        return f", page {where['page']}"
    if "slide" in where:
        return f", slide {where['slide']}"
    if where.get("headings"):
        return ", " + " › ".join(where["headings"])
    if "row" in where:
        return f", row {where['row']}"
    return ""


@tenant_view(edit=True)
def detail(request, scope, public_id: str):
    job = _job(scope, public_id)
    form = FeedbackForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        record_feedback(
            job, scope.tenant, form.cleaned_data["outcome"], form.cleaned_data["comment"]
        )
        messages.success(request, "Thanks, your feedback was recorded.")
        return redirect("dashboard:verification", public_id=job.public_id)

    spans = list(job.spans.filter(iteration=0))  # later iterations are in mitigation steps
    _link_spans(job, spans)
    coverage = answer_coverage(job.coverage, job.response)
    checked, unchecked = split_answer(job.response, coverage)
    answer = numbered_segments(checked, spans)  # a span past the cut is clipped away
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
            "answer_coverage": coverage,
            "unchecked": unchecked,
            "final_differs": bool(job.final_response) and job.final_response != job.response,
            "passages": _labelled(job, passages_with_evidence(_context(job), spans)),
            "grounding": job.grounding,
            "mitigation": job_detail.mitigation(list(job.mitigation_steps.all())),
            "usage": usage,
            "per_model": _per_model(usage),
            "latency_total": total,
            "stages": stages,
            "feedback": list(job.feedback.order_by("-created_at")),
            "form": form,
        },
    )
