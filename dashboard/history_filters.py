"""Filters of the verification history page; every filter is a plain GET parameter."""

from __future__ import annotations

from django import forms
from django.db.models import Q, QuerySet

from verification.engine.types import QUERY_TYPES
from verification.models import JobStatus, VerificationJob

from .policy_forms import MODES

ANY = [("", "any")]


class HistoryFilterForm(forms.Form):
    q = forms.CharField(
        required=False,
        label="Search",
        max_length=200,
        widget=forms.SearchInput(attrs={"placeholder": "query, answer or ver_ id"}),
    )
    status = forms.ChoiceField(required=False, choices=ANY + list(JobStatus.choices))
    detected = forms.ChoiceField(
        required=False,
        label="Hallucination",
        choices=ANY + [("yes", "detected"), ("no", "not detected")],
    )
    mode = forms.ChoiceField(required=False, choices=ANY + MODES)
    query_type = forms.ChoiceField(
        required=False,
        label="Query type",
        choices=ANY + [(q, q.replace("_", " ")) for q in QUERY_TYPES],
    )
    decision = forms.CharField(required=False, max_length=100)
    min_score = forms.FloatField(
        required=False,
        label="Score ≥",
        min_value=0,
        max_value=1,
        widget=forms.NumberInput(attrs={"step": "0.05", "min": 0, "max": 1}),
    )
    start = forms.DateField(
        required=False, label="From", widget=forms.DateInput(attrs={"type": "date"})
    )
    end = forms.DateField(
        required=False, label="To", widget=forms.DateInput(attrs={"type": "date"})
    )

    def apply(self, jobs: QuerySet) -> QuerySet:
        """`jobs` narrowed by the filters; unchanged when the form is unbound or invalid
        (the errors are shown on the form)."""
        if not self.is_valid():
            return jobs
        d = self.cleaned_data
        if d["q"]:
            job_id = VerificationJob.parse_public_id(d["q"].strip())
            jobs = (
                jobs.filter(pk=job_id)
                if job_id
                else jobs.filter(Q(query__icontains=d["q"]) | Q(response__icontains=d["q"]))
            )
        if d["status"]:
            jobs = jobs.filter(status=d["status"])
        if d["detected"]:
            jobs = jobs.filter(detected=d["detected"] == "yes")
        if d["mode"]:
            jobs = jobs.filter(mode=d["mode"])
        if d["query_type"]:
            jobs = jobs.filter(query_type=d["query_type"])
        if d["decision"]:
            jobs = jobs.filter(decision=d["decision"])
        if d["min_score"] is not None:
            jobs = jobs.filter(score__gte=d["min_score"])
        if d["start"]:
            jobs = jobs.filter(created_at__date__gte=d["start"])
        if d["end"]:
            jobs = jobs.filter(created_at__date__lte=d["end"])
        return jobs
