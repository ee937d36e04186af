"""Labelled datasets in the dashboard: list, upload, build from the review queue or API
feedback, look at the rows, download, delete."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from quality import datasets as actions
from quality.models import Dataset, Evaluation
from quality.rows import InvalidUpload, to_jsonl
from tenants.audit import record

from ..scoping import tenant_view
from .evaluations import EvaluateForm, _versions

NAME_HELP = "letters, digits, dot, dash, underscore"


class DatasetForm(forms.Form):
    name = forms.RegexField(regex=r"^[\w.-]{1,100}$", max_length=100, help_text=NAME_HELP)
    source = forms.ChoiceField(choices=Dataset.SOURCES, initial=Dataset.REVIEW)
    file = forms.FileField(required=False, help_text="JSONL or CSV (for an upload)")

    def clean(self):
        data = super().clean()
        if data.get("source") == Dataset.UPLOAD and not data.get("file"):
            self.add_error("file", "Choose a .jsonl or .csv file to upload.")
        return data


def _dataset(scope, dataset_id: str) -> Dataset:
    return scope.get_or_404(Dataset.objects, pk=Dataset.parse_public_id(dataset_id))


def _create(scope, form: DatasetForm, user) -> Dataset:
    name, source = form.cleaned_data["name"], form.cleaned_data["source"]
    if source == Dataset.REVIEW:
        return actions.create_from_labels(scope.tenant, name, user)
    if source == Dataset.FEEDBACK:
        return actions.create_from_feedback(scope.tenant, name, user)
    upload = form.cleaned_data["file"]
    kind = "csv" if upload.name.lower().endswith(".csv") else "jsonl"
    return actions.create_from_upload(scope.tenant, name, upload.read(), kind, user)


@tenant_view(edit=True)
def datasets(request, scope):
    errors: list = []
    form = DatasetForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            dataset = _create(scope, form, request.user)
        except InvalidUpload as exc:
            errors = exc.errors
            messages.error(request, f"{exc}. Fix the rows listed below and upload again.")
        except (actions.LimitExceeded, actions.EmptyDataset) as exc:
            messages.error(request, str(exc))
        else:
            record(
                request,
                "dataset.created",
                dataset,
                details={"name": dataset.name, "version": dataset.version, "rows": dataset.size},
            )
            messages.success(request, f"Dataset {dataset} created with {dataset.size} rows.")
            return redirect("dashboard:dataset", dataset_id=dataset.public_id)
    return render(
        request,
        "dashboard/datasets.html",
        {
            "nav": "datasets",
            "datasets": scope.filter(Dataset.objects.order_by("name", "-version")),
            "form": form,
            "row_errors": errors,
            "limits": actions.limits(scope.tenant),
        },
    )


@tenant_view
def dataset(request, scope, dataset_id: str):
    found = _dataset(scope, dataset_id)
    versions = _versions(scope)
    return render(
        request,
        "dashboard/dataset.html",
        {
            "nav": "datasets",
            "dataset": found,
            "rows": found.rows.all()[:50],
            "evaluations": scope.filter(Evaluation.objects.filter(dataset=found)),
            "evaluate_form": EvaluateForm(
                versions, initial={"policy": str(versions[0]) if versions else "0"}
            ),
        },
    )


@tenant_view
def download(request, scope, dataset_id: str):
    found = _dataset(scope, dataset_id)
    body = to_jsonl(actions.rows_of(found), f"{found.name}-v{found.version}")
    response = HttpResponse(body, content_type="application/x-ndjson; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{found.name}-v{found.version}.jsonl"'
    return response


@require_POST
@tenant_view(edit=True)
def delete(request, scope, dataset_id: str):
    found = _dataset(scope, dataset_id)
    details = {"name": found.name, "version": found.version}
    actions.delete_dataset(found)
    record(request, "dataset.deleted", tenant=scope.tenant, details=details)
    messages.success(request, f"Dataset {details['name']} v{details['version']} deleted.")
    return redirect("dashboard:datasets")
