"""Evaluating a policy version (or a draft) on a dataset: start a run, watch its progress,
read its report (figures, confusion matrix, charts, cost and latency per mode, worst
disagreements), compare two runs side by side."""

from __future__ import annotations

import uuid

from django import forms
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from engine import DEFAULT_THRESHOLD, PolicyDocument
from quality.evaluation import start_evaluation
from quality.models import Dataset, Evaluation
from tenants.audit import record
from verification.tenant_config import available_to

from .. import quality_charts
from ..models import PolicyChange
from ..policy.actions import current_document, current_version
from ..policy.yaml_io import PolicyImportError, load_yaml
from ..scoping import tenant_view

DRAFT = "draft"


class EvaluateForm(forms.Form):
    policy = forms.ChoiceField(label="Policy")
    draft = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 6}), label="Draft (YAML)"
    )

    def __init__(self, versions: list[int], *args, **kwargs):
        super().__init__(*args, **kwargs)
        choices = [(str(v), f"version {v}") for v in versions] or [("0", "defaults")]
        self.fields["policy"].choices = [*choices, (DRAFT, "unsaved draft (YAML below)")]


def _versions(scope) -> list[int]:
    return list(
        scope.filter(PolicyChange.objects).order_by("-version").values_list("version", flat=True)
    )


def _document(scope, choice: str, draft: str) -> tuple[PolicyDocument, int | None]:
    """The policy to run, and its version (None for a draft); `PolicyImportError`."""
    if choice == DRAFT:
        return load_yaml(draft, available_to(scope.tenant)), None
    version = int(choice)
    if version == current_version(scope.tenant):
        return current_document(scope.tenant), version
    change = scope.get_or_404(PolicyChange.objects, version=version)
    return PolicyDocument.model_validate(change.after or {}), version


@require_POST
@tenant_view(edit=True)
def evaluate(request, scope, dataset_id: str):
    dataset = scope.get_or_404(Dataset.objects, pk=Dataset.parse_public_id(dataset_id))
    form = EvaluateForm(_versions(scope), request.POST)
    if not form.is_valid():
        messages.error(request, "Choose a policy version or a draft.")
        return redirect("dashboard:dataset", dataset_id=dataset_id)
    try:
        document, version = _document(
            scope, form.cleaned_data["policy"], form.cleaned_data["draft"]
        )
    except PolicyImportError as exc:
        messages.error(request, "The draft is not a valid policy: " + "; ".join(exc.args[0]))
        return redirect("dashboard:dataset", dataset_id=dataset_id)
    evaluation = start_evaluation(scope.tenant, dataset, document, version, request.user)
    record(
        request,
        "evaluation.started",
        evaluation,
        details={"dataset": str(dataset), "policy": evaluation.label},
    )
    return redirect("dashboard:evaluation", evaluation_id=evaluation.pk)


def _charts(evaluation: Evaluation) -> dict:
    results = evaluation.results or {}
    return {
        "frame": quality_charts.frame(),
        "reliability": quality_charts.reliability(results.get("reliability", [])),
        "pr": quality_charts.pr_curve(
            results.get("pr_curve", []), results.get("threshold", DEFAULT_THRESHOLD)
        ),
    }


def _evaluation(scope, evaluation_id) -> Evaluation:
    try:
        pk = uuid.UUID(str(evaluation_id))
    except ValueError as exc:
        raise Http404 from exc
    return scope.get_or_404(Evaluation.objects.select_related("dataset"), pk=pk)


@tenant_view
def evaluation(request, scope, evaluation_id: str):
    found = _evaluation(scope, evaluation_id)
    others = scope.filter(Evaluation.objects.filter(dataset=found.dataset, status="completed"))
    return render(
        request,
        "dashboard/evaluation.html",
        {
            "nav": "datasets",
            "evaluation": found,
            "r": found.results or {},
            "charts": _charts(found),
            "others": others.exclude(pk=found.pk),
        },
    )


@require_POST
@tenant_view(edit=True)
def rerun(request, scope, evaluation_id: str):
    """A failed run, or one stuck with no progress, started again as a new run of the same
    policy document on the same dataset (the old one stays in the history as it was)."""
    old = _evaluation(scope, evaluation_id)
    if old.status == Evaluation.COMPLETED:
        messages.info(request, "This run completed; start a new evaluation from the dataset.")
        return redirect("dashboard:evaluation", evaluation_id=old.pk)
    document = PolicyDocument.model_validate(old.policy_document)
    evaluation = start_evaluation(
        scope.tenant, old.dataset, document, old.policy_version, request.user
    )
    if old.status != Evaluation.FAILED:  # a stuck run: retire it, so that only one is live
        Evaluation.objects.filter(pk=old.pk, status=old.status).update(
            status=Evaluation.FAILED, error="replaced by a re-run", completed_at=timezone.now()
        )
    record(
        request,
        "evaluation.started",
        evaluation,
        details={"dataset": str(old.dataset), "policy": evaluation.label, "rerun_of": str(old.pk)},
    )
    return redirect("dashboard:evaluation", evaluation_id=evaluation.pk)


@tenant_view
def compare(request, scope):
    a = _evaluation(scope, request.GET.get("a", ""))
    b = _evaluation(scope, request.GET.get("b", ""))
    return render(
        request,
        "dashboard/evaluation_compare.html",
        {
            "nav": "datasets",
            "runs": [{"evaluation": e, "r": e.results or {}, "charts": _charts(e)} for e in (a, b)],
            "same_dataset": a.dataset_id == b.dataset_id,
        },
    )
