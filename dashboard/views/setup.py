"""The setup checklist a new member lands on after accepting an invitation."""

from __future__ import annotations

from django.shortcuts import render

from ..onboarding import checklist
from ..scoping import tenant_view


@tenant_view
def setup(request, scope):
    steps = checklist(scope.tenant)
    return render(
        request,
        "dashboard/setup.html",
        {"nav": "setup", "steps": steps, "done": sum(s.done for s in steps)},
    )
