"""The audit log of the tenant being looked at: owners, admins and staff; filter by action,
actor and date (bounded like every dashboard date); newest first. A bad date or a page that
does not exist is said so, never quietly shown as an empty log."""

from __future__ import annotations

from django import forms
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.shortcuts import render

from tenants.audit import AuditEvent

from ..daterange import DateRange, EndNotBeforeStartForm, bounded_date_field, form_errors
from ..paging import page_or_first
from ..scoping import tenant_view

PAGE_SIZE = 50


class AuditFilterForm(EndNotBeforeStartForm):
    action = forms.ChoiceField(required=False)
    actor = forms.ChoiceField(required=False)
    start = bounded_date_field(label="From")
    end = bounded_date_field(label="To")

    def __init__(self, *args, actions: list[str], actors: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["action"].choices = [("", "any action")] + [(a, a) for a in actions]
        self.fields["actor"].choices = [("", "anyone")] + [(a, a) for a in actors]

    def apply(self, events):
        """Narrow by every filter that is valid (the invalid ones are shown as errors)."""
        data = self.cleaned_data
        if data.get("action"):
            events = events.filter(action=data["action"])
        if data.get("actor"):
            events = events.filter(actor_name=data["actor"])
        if data.get("start"):
            events = events.filter(created_at__gte=DateRange(data["start"], data["start"]).start_at)
        if data.get("end"):
            events = events.filter(created_at__lt=DateRange(data["end"], data["end"]).end_before)
        return events


@tenant_view
def audit_log(request, scope):
    if not scope.can_edit:  # viewers do not read who did what
        raise PermissionDenied
    events = scope.filter(AuditEvent.objects.all())
    actions = sorted(set(events.values_list("action", flat=True).distinct()))
    actors = sorted(set(events.exclude(actor_name="").values_list("actor_name", flat=True)))
    filters = AuditFilterForm(request.GET or None, actions=actions, actors=actors)
    errors: list[str] = []
    if filters.is_bound:
        filters.is_valid()
        errors = form_errors(filters)
        events = filters.apply(events)
    page, page_error = page_or_first(Paginator(events, PAGE_SIZE), request.GET.get("page"))
    params = request.GET.copy()
    params.pop("page", None)
    return render(
        request,
        "dashboard/audit_log.html",
        {
            "nav": "audit",
            "page": page,
            "page_error": page_error,
            "filters": filters,
            "filter_errors": errors,
            "filter_query": params.urlencode(),
        },
    )
