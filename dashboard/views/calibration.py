"""Calibration from labels: fit the threshold (and optionally an isotonic or Platt curve)
on an evaluation of the current policy, show out-of-fold before/after figures with intervals,
refuse what does not beat the current policy, adopt as a new policy version."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.shortcuts import redirect, render

from quality import calibration
from quality.models import Evaluation
from tenants.audit import record

from ..calibration_adoption import adopt
from ..policy.actions import current_document, current_version
from ..scoping import tenant_view
from .evaluations import _evaluation

OBJECTIVES = [
    ("balanced_accuracy", "balanced accuracy"),
    ("precision", "a target precision (best recall at or above it)"),
    ("recall", "a target recall (best precision at or above it)"),
]
METHODS = [
    ("threshold", "threshold only"),
    ("isotonic", "isotonic calibration + threshold"),
    ("platt", "Platt scaling + threshold"),
]


class CalibrateForm(forms.Form):
    objective = forms.ChoiceField(choices=OBJECTIVES, initial="balanced_accuracy")
    target = forms.FloatField(required=False, min_value=0.01, max_value=0.99)
    method = forms.ChoiceField(choices=METHODS, initial="threshold")

    def clean(self):
        data = super().clean()
        if data.get("objective") in ("precision", "recall") and data.get("target") is None:
            self.add_error("target", "A precision or recall objective needs a target.")
        return data


def _propose(evaluation: Evaluation, form: CalibrateForm) -> calibration.TypedProposal:
    rows = (evaluation.results or {}).get("rows", [])
    return calibration.propose_by_query_type(
        [r.get("raw", r["score"]) for r in rows],
        [r["label"] for r in rows],
        [r["detected"] for r in rows],
        # runs from before query types were recorded: one type, the policy-wide fit only
        [r.get("query_type", "other") for r in rows],
        objective=form.cleaned_data["objective"],
        target=form.cleaned_data["target"]
        if form.cleaned_data["objective"] != "balanced_accuracy"
        else None,
        method=form.cleaned_data["method"],
    )


@tenant_view(edit=True)
def calibrate(request, scope, evaluation_id):
    evaluation = _evaluation(scope, evaluation_id)
    form = CalibrateForm(request.POST or None)
    typed, proposal, refusal = None, None, ""
    # A draft or an older version is no baseline for the policy in force: preview only.
    is_current = evaluation.policy_version == current_version(scope.tenant)
    if evaluation.status != Evaluation.COMPLETED:
        refusal = "The evaluation has not finished yet."
    elif request.method == "POST" and form.is_valid():
        try:
            typed = _propose(evaluation, form)
            proposal = typed.overall
        except calibration.RefusedProposal as exc:
            refusal, proposal = str(exc), exc.proposal
        except calibration.Refused as exc:
            refusal = str(exc)
        if typed is not None and proposal is not None and not refusal and request.POST.get("adopt"):
            if not is_current:
                refusal = (
                    "Adopting needs an evaluation of the current policy version "
                    f"(v{current_version(scope.tenant)}): evaluate it on this dataset first."
                )
            else:
                change = adopt(
                    scope.tenant,
                    request.user,
                    current_document(scope.tenant),
                    typed,
                    evaluation.dataset,
                )
                if change is None:
                    messages.info(request, "The calibrated policy is the current one already.")
                    return redirect("dashboard:policy-history")
                record(
                    request,
                    "policy.calibrated",
                    change,
                    details={
                        "version": change.version,
                        "dataset": str(evaluation.dataset),
                        "method": proposal.fit.curve.method,
                        "objective": proposal.objective,
                        "threshold": change.after.get("threshold"),
                        "query_types": sorted(typed.by_type) if typed else [],
                    },
                )
                messages.success(
                    request,
                    f"Calibration adopted as policy version {change.version} "
                    "(restorable from the history).",
                )
                return redirect("dashboard:policy-history")
    return render(
        request,
        "dashboard/calibrate.html",
        {
            "nav": "datasets",
            "evaluation": evaluation,
            "form": form,
            "proposal": proposal,
            "typed": typed,
            "refusal": refusal,
            "is_current": is_current,
            "min_labels": calibration.MIN_LABELS,
            "min_per_class": calibration.MIN_PER_CLASS,
            "figures": ("balanced_accuracy", "precision", "recall"),
        },
    )
