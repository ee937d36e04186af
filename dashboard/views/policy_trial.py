"""The "test this policy" box: a synchronous verification of pasted input, nothing stored.

It tests the saved policy, or a draft: the editor's "Test this draft" button posts
the unsaved form here, and the draft then travels with the test form as YAML.
"""

from __future__ import annotations

import logging

from django.shortcuts import render

from ..highlight import numbered_segments
from ..policy.forms import PolicyTestForm
from ..policy.trial import draft_from_editor, run_trial, trial_policy
from ..scoping import tenant_view

log = logging.getLogger(__name__)


@tenant_view
def test_policy(request, scope):
    # POST runs a read-only check, so viewers may use it too; it stores nothing.
    if request.method == "POST" and request.POST.get("draft_from_editor"):
        policy = draft_from_editor(scope.tenant, request.POST)
        form = PolicyTestForm(initial={"draft": policy.draft_yaml})
        return _page(request, form, policy)
    form = PolicyTestForm(request.POST or None)
    policy = trial_policy(scope.tenant, request.POST.get("draft", ""))
    outcome, error, answer = None, "", []
    if request.method == "POST" and form.is_valid() and policy.document is not None:
        try:
            outcome = run_trial(
                policy.document,
                form.passages(),
                form.cleaned_data["query"],
                form.cleaned_data["response"],
                form.cleaned_data["decision"],
                form.cleaned_data["domain"],
            )
        except KeyError:
            form.add_error("decision", "The policy has no decision of that name.")
        except (ImportError, ValueError, RuntimeError, OSError) as exc:
            log.exception("policy trial failed")
            error = f"The engine could not run this check ({type(exc).__name__})."
        else:
            answer = numbered_segments(form.cleaned_data["response"], outcome.result.spans)
    return _page(request, form, policy, outcome, error, answer)


def _page(request, form, policy, outcome=None, error="", answer=()):
    return render(
        request,
        "dashboard/policy_test.html",
        {
            "nav": "policy",
            "form": form,
            "outcome": outcome,
            "error": error,
            "answer": answer,
            "testing_draft": policy.is_draft and not policy.problems,
            "draft_problems": policy.problems,
        },
    )
