"""The "test this policy" box: a synchronous verification of pasted input, nothing stored."""

from __future__ import annotations

import logging

from django.shortcuts import render

from ..highlight import numbered_segments
from ..policy_actions import current_document
from ..policy_forms import PolicyTestForm
from ..policy_trial import run_trial
from ..scoping import tenant_view

log = logging.getLogger(__name__)


@tenant_view
def test_policy(request, scope):
    # POST runs a read-only check, so viewers may use it too; it stores nothing.
    form = PolicyTestForm(request.POST or None)
    outcome, error, answer = None, "", []
    if request.method == "POST" and form.is_valid():
        try:
            outcome = run_trial(
                current_document(scope.tenant),
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
    return render(
        request,
        "dashboard/policy_test.html",
        {"nav": "policy", "form": form, "outcome": outcome, "error": error, "answer": answer},
    )
