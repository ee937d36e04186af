"""The audit log of the tenant being looked at: owners, admins and staff; filter by action
and date; newest first."""

from __future__ import annotations

import datetime as dt

from django import forms
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.shortcuts import render

from tenants.audit import AuditEvent

from ..scoping import tenant_view

PAGE_SIZE = 50


class AuditFilterForm(forms.Form):
    action = forms.ChoiceField(required=False)
    start = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    end = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args, actions: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["action"].choices = [("", "any action")] + [(a, a) for a in actions]

    def apply(self, events):
        data = self.cleaned_data
        if data.get("action"):
            events = events.filter(action=data["action"])
        if data.get("start"):
            events = events.filter(created_at__gte=_midnight(data["start"]))
        if data.get("end"):
            events = events.filter(created_at__lt=_midnight(data["end"] + dt.timedelta(days=1)))
        return events


def _midnight(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time.min, tzinfo=dt.UTC)


@tenant_view
def audit_log(request, scope):
    if not scope.can_edit:  # viewers do not read who did what
        raise PermissionDenied
    events = scope.filter(AuditEvent.objects.all())
    actions = sorted(set(events.values_list("action", flat=True).distinct()))
    filters = AuditFilterForm(request.GET or None, actions=actions)
    if filters.is_valid():
        events = filters.apply(events)
    page = Paginator(events, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request, "dashboard/audit_log.html", {"nav": "audit", "page": page, "filters": filters}
    )
