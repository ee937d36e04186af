"""YAML import in two steps: upload and check, then confirm after seeing the diff."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render

from tenants.audit import record
from verification.tenant_config import available_to

from ..models import PolicyChange
from ..policy.actions import StalePolicy, current_document, current_version, save_policy
from ..policy.forms import ImportConfirmForm, YamlImportForm
from ..policy.yaml_io import PolicyImportError, load_yaml, yaml_diff
from ..scoping import tenant_view


def _preview(request, scope, text: str, notice: str = ""):
    """The page that shows what the import would change, with the confirm button."""
    imported = load_yaml(text, available_to(scope.tenant))
    version = current_version(scope.tenant)
    diff = yaml_diff(
        current_document(scope.tenant), imported, f"version {version} (current)", "imported"
    )
    confirm = ImportConfirmForm(initial={"yaml_text": text, "version": version})
    return render(
        request,
        "dashboard/policy_import.html",
        {"nav": "policy", "preview": True, "diff": diff, "confirm": confirm, "notice": notice},
        status=409 if notice else 200,
    )


def _confirm(request, scope):
    form = ImportConfirmForm(request.POST)
    if not form.is_valid():
        return redirect("dashboard:policy-import")
    text = form.cleaned_data["yaml_text"]
    try:
        document = load_yaml(text, available_to(scope.tenant))
        change = save_policy(
            scope.tenant,
            request.user,
            document,
            PolicyChange.YAML_IMPORT,
            expected_version=form.cleaned_data["version"],
        )
    except PolicyImportError:
        return redirect("dashboard:policy-import")
    except StalePolicy as exc:
        notice = (
            f"The policy changed (now version {exc.current}) since the preview: "
            "nothing was imported. Here is the difference with the current version."
        )
        return _preview(request, scope, text, notice)
    if change is None:
        messages.info(request, "The imported policy is identical to the current one.")
    else:
        messages.success(request, f"Policy imported as version {change.version}.")
        record(request, "policy.imported", change, details={"version": change.version})
    return redirect("dashboard:policy")


@tenant_view(edit=True)
def import_yaml(request, scope):
    if request.method == "POST" and request.POST.get("confirm"):
        return _confirm(request, scope)
    form = YamlImportForm(request.POST or None, request.FILES or None)
    errors: list[str] = []
    if request.method == "POST" and form.is_valid():
        try:
            return _preview(request, scope, form.cleaned_data["yaml_text"])
        except PolicyImportError as exc:
            errors = exc.messages
    return render(
        request,
        "dashboard/policy_import.html",
        {"nav": "policy", "form": form, "errors": errors},
        status=400 if request.method == "POST" else 200,
    )
