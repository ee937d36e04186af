"""The policy editor: global settings and decisions, checked before they are published."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render

from tenants.audit import record
from tenants.models import Policy
from verification.tenant_config import available_to, usable_models

from ..models import PolicyChange
from ..policy.actions import StalePolicy, current_document, save_policy
from ..policy.forms import YamlImportForm
from ..policy.submit import editor_forms, read_submission
from ..policy.yaml_io import dump_yaml, yaml_diff
from ..scoping import tenant_view


def _stored(tenant):
    return Policy.objects.filter(tenant=tenant).select_related("updated_by").first()


@tenant_view(edit=True)
def editor(request, scope):
    doc = current_document(scope.tenant)
    policy = _stored(scope.tenant)
    version = policy.version if policy else 0
    problems: list[str] = []
    conflict = None
    if request.method == "POST":
        sub = read_submission(request.POST, doc, version, available_to(scope.tenant))
        settings_form, decisions, problems = sub.settings_form, sub.decisions, sub.problems
        if sub.document is not None:
            try:
                change = save_policy(
                    scope.tenant,
                    request.user,
                    sub.document,
                    PolicyChange.EDITOR,
                    expected_version=sub.version or 0,
                )
            except StalePolicy as exc:
                # Keep what they typed, show what changed underneath, and let the next
                # save (from the version now stored) replace it knowingly.
                policy = _stored(scope.tenant)
                conflict = {
                    "version": exc.current,
                    "diff": yaml_diff(
                        exc.document, sub.document, f"version {exc.current} (saved)", "your edit"
                    ),
                }
                data = request.POST.copy()
                data["version"] = str(exc.current)
                settings_form.data = data
            else:
                if change is None:
                    messages.info(request, "Nothing changed.")
                else:
                    messages.success(request, f"Policy saved as version {change.version}.")
                    record(request, "policy.saved", change, details={"version": change.version})
                return redirect("dashboard:policy")
    else:
        settings_form, decisions = editor_forms(doc, version)
    status = 200 if request.method != "POST" else 409 if conflict else 400
    return render(
        request,
        "dashboard/policy.html",
        {
            "nav": "policy",
            "settings_form": settings_form,
            "decisions": decisions,
            "policy": policy,
            "problems": problems,
            "conflict": conflict,
            "import_form": YamlImportForm(),
            "recent_changes": scope.filter(PolicyChange.objects.select_related("actor"))[:5],
            # the models the editor offers: those the tenant's providers serve (and its default)
            "usable_models": usable_models(scope.tenant.pk),
        },
        status=status,
    )


@tenant_view
def export_yaml(request, scope):
    body = dump_yaml(current_document(scope.tenant))
    response = HttpResponse(body, content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="truthlens-policy-{scope.tenant.slug}.yaml"'
    )
    return response
