"""The policy editor: global settings and decisions, validated by `PolicyDocument`."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from pydantic import ValidationError

from tenants.audit import record
from tenants.models import Policy
from verification.engine.policy import PolicyDocument

from ..models import PolicyChange
from ..policy_actions import current_document, save_policy
from ..policy_forms import DecisionForm, DecisionFormSet, GlobalSettingsForm, YamlImportForm
from ..policy_yaml import PolicyImportError, dump_yaml, load_yaml
from ..scoping import tenant_view


def _forms(doc: PolicyDocument, data=None):
    settings_form = GlobalSettingsForm(data, initial=GlobalSettingsForm.initial_from(doc))
    decisions = DecisionFormSet(
        data, prefix="decisions", initial=[DecisionForm.initial_from(d) for d in doc.decisions]
    )
    return settings_form, decisions


def _attach_errors(exc: ValidationError, settings_form, decisions, kept: list[int]) -> None:
    """Put each pydantic error on the field (or decision form) its path names."""
    for err in exc.errors():
        loc = tuple(err["loc"])
        message = err["msg"]
        if loc and loc[0] == "decisions":
            if len(loc) >= 2 and isinstance(loc[1], int) and loc[1] < len(kept):
                form = decisions.forms[kept[loc[1]]]
                field = {"name": "name", "priority": "priority"}.get(
                    str(loc[2]) if len(loc) > 2 else ""
                )
                form.add_error(
                    field, f"{'.'.join(map(str, loc[2:]))}: {message}" if not field else message
                )
            else:
                settings_form.add_error(None, f"decisions: {message}")
            continue
        field = settings_form.field_for(loc)
        settings_form.add_error(
            field, message if field else f"{'.'.join(map(str, loc))}: {message}"
        )


@tenant_view(edit=True)
def editor(request, scope):
    doc = current_document(scope.tenant)
    settings_form, decisions = _forms(doc, request.POST if request.method == "POST" else None)
    if request.method == "POST" and settings_form.is_valid() and decisions.is_valid():
        kept = [
            i
            for i, f in enumerate(decisions.forms)
            if f.cleaned_data.get("name")
            and not f.cleaned_data.get("DELETE")
            and (i < decisions.initial_form_count() or f.has_changed())
        ]
        # Start from the stored policy, so settings the form does not show survive a save.
        document = {**doc.model_dump(), **settings_form.to_document()}
        document["decisions"] = [decisions.forms[i].to_decision() for i in kept]
        try:
            validated = PolicyDocument.model_validate(document)
        except ValidationError as exc:
            _attach_errors(exc, settings_form, decisions, kept)
        else:
            change = save_policy(scope.tenant, request.user, validated, PolicyChange.EDITOR)
            if change is None:
                messages.info(request, "Nothing changed.")
            else:
                messages.success(request, f"Policy saved as version {change.version}.")
                record(request, "policy.saved", change, details={"version": change.version})
            return redirect("dashboard:policy")
    policy = Policy.objects.filter(tenant=scope.tenant).select_related("updated_by").first()
    return render(
        request,
        "dashboard/policy.html",
        {
            "nav": "policy",
            "settings_form": settings_form,
            "decisions": decisions,
            "policy": policy,
            "import_form": YamlImportForm(),
            "recent_changes": scope.filter(PolicyChange.objects.select_related("actor"))[:5],
        },
        status=400 if request.method == "POST" else 200,
    )


@tenant_view
def export_yaml(request, scope):
    body = dump_yaml(current_document(scope.tenant))
    response = HttpResponse(body, content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="truthlens-policy-{scope.tenant.slug}.yaml"'
    )
    return response


@tenant_view(edit=True)
def import_yaml(request, scope):
    form = YamlImportForm(request.POST or None, request.FILES or None)
    errors: list[str] = []
    if request.method == "POST" and form.is_valid():
        try:
            document = load_yaml(form.cleaned_data["yaml_text"])
        except PolicyImportError as exc:
            errors = exc.messages
        else:
            change = save_policy(scope.tenant, request.user, document, PolicyChange.YAML_IMPORT)
            if change is None:
                messages.info(request, "The imported policy is identical to the current one.")
            else:
                messages.success(request, f"Policy imported as version {change.version}.")
                record(request, "policy.imported", change, details={"version": change.version})
            return redirect("dashboard:policy")
    return render(
        request,
        "dashboard/policy_import.html",
        {"nav": "policy", "form": form, "errors": errors},
        status=400 if request.method == "POST" else 200,
    )
