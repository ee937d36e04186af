"""The review queue: uncertain, sampled and flagged answers; label them, mark spans,
walk the queue with next/previous (and keyboard shortcuts, `static/dashboard/review.js`)."""

from __future__ import annotations

import json

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from quality import labels as label_actions
from quality.drift import check_drift
from quality.labels import reviewer_agreement
from quality.models import OUTCOMES, Label, ReviewItem
from quality.queue import counts, queue_for, settings_for
from tenants.audit import record
from verification.models import VerificationJob

from ..scoping import tenant_view


class LabelForm(forms.Form):
    outcome = forms.ChoiceField(choices=OUTCOMES)
    spans = forms.CharField(required=False, max_length=20000)

    def clean_spans(self):
        try:
            return json.loads(self.cleaned_data["spans"] or "[]")
        except ValueError as exc:
            raise forms.ValidationError("spans must be a JSON list") from exc


class SampleForm(forms.Form):
    sample_rate = forms.FloatField(min_value=0, max_value=1, label="Random sample (share, 0–1)")
    drift_margin = forms.FloatField(min_value=0.01, max_value=1, label="Drift alert margin")


def _reviewer(scope) -> None:
    if not scope.can_review:
        raise PermissionDenied


@tenant_view
def queue(request, scope):
    reason = request.GET.get("reason", "")
    if reason not in dict(ReviewItem.REASONS):
        reason = ""
    pending = queue_for(scope.tenant, request.user, reason)
    quality = settings_for(scope.tenant)
    return render(
        request,
        "dashboard/review_queue.html",
        {
            "nav": "review",
            "items": queue_for(scope.tenant, request.user, reason, pending_only=False)[:100],
            "pending": pending.count(),
            "first": pending.first(),
            "counts": counts(scope.tenant),
            "reason": reason,
            "reasons": ReviewItem.REASONS,
            "agreement": reviewer_agreement(scope.filter(Label.objects)),
            "form": SampleForm(
                initial={"sample_rate": quality.sample_rate, "drift_margin": quality.drift_margin}
            ),
        },
    )


@require_POST
@tenant_view(edit=True)
def queue_settings(request, scope):
    form = SampleForm(request.POST)
    if form.is_valid():
        quality = settings_for(scope.tenant)
        quality.sample_rate = form.cleaned_data["sample_rate"]
        quality.drift_margin = form.cleaned_data["drift_margin"]
        quality.save()
        record(request, "review.settings_changed", quality, details=form.cleaned_data)
        messages.success(request, "Review settings saved.")
    else:
        messages.error(request, "Sample rate and margin must lie between 0 and 1.")
    return redirect("dashboard:review")


def _neighbours(scope, item: ReviewItem) -> tuple[ReviewItem | None, ReviewItem | None]:
    items = ReviewItem.objects.filter(tenant=scope.tenant)
    before = items.filter(created_at__lt=item.created_at) | items.filter(
        created_at=item.created_at, id__lt=item.id
    )
    after = items.filter(created_at__gt=item.created_at) | items.filter(
        created_at=item.created_at, id__gt=item.id
    )
    return (
        before.select_related("job").order_by("-created_at", "-id").first(),
        after.select_related("job").order_by("created_at", "id").first(),
    )


def _item(scope, public_id: str) -> ReviewItem:
    job_id = VerificationJob.parse_public_id(public_id)
    return scope.get_or_404(ReviewItem.objects.select_related("job"), job_id=job_id)


@tenant_view
def item(request, scope, public_id: str):
    review = _item(scope, public_id)
    job = review.job
    others = Label.objects.filter(job=job).select_related("reviewer").order_by("created_at")
    mine = next((label for label in others if label.reviewer_id == request.user.pk), None)
    if mine is not None:
        marks = mine.spans
    else:  # start from what the detector found, for the reviewer to keep, move or drop
        marks = [
            {"start": s.start, "end": s.end}
            for s in job.spans.filter(iteration=0).order_by("start")
        ]
    previous, following = _neighbours(scope, review)
    outcomes = {label.outcome for label in others}
    return render(
        request,
        "dashboard/review_item.html",
        {
            "nav": "review",
            "review": review,
            "job": job,
            "mine": mine,
            "labels": others,
            "disagreement": len(outcomes) > 1,
            "marks": marks,
            "previous": previous,
            "next": following,
            "can_review": scope.can_review,
        },
    )


@require_POST
@tenant_view
def save(request, scope, public_id: str):
    _reviewer(scope)
    review = _item(scope, public_id)
    form = LabelForm(request.POST)
    try:
        if not form.is_valid():
            raise label_actions.InvalidLabel(
                "; ".join(e for es in form.errors.values() for e in es)
            )
        label = label_actions.save_label(
            review.job, request.user, form.cleaned_data["outcome"], form.cleaned_data["spans"]
        )
    except label_actions.InvalidLabel as exc:
        messages.error(request, f"Label not saved: {exc}")
        return redirect("dashboard:review-item", public_id=public_id)
    record(
        request,
        "label.saved",
        review.job,
        details={"outcome": label.outcome, "spans": len(label.spans)},
    )
    messages.success(request, f"Labelled {label.outcome}.")
    check_drift(scope.tenant)  # a label can complete the week that shows a drop
    following = queue_for(scope.tenant, request.user).first()
    if following is None:
        return redirect(reverse("dashboard:review"))
    return redirect("dashboard:review-item", public_id=following.job.public_id)
