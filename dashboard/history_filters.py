"""Filters of the verification history page; every filter is a plain GET parameter.

A django-filter `FilterSet`, like the API's list filter: each valid filter
narrows the tenant's jobs, an invalid one is ignored and shown on the form.
The Status filter offers what the Status column shows: a job's state while it
is not completed, and the result (hallucination, grounded, ...) once it is.
"""

from __future__ import annotations

import django_filters
from django import forms
from django.db.models import Q, QuerySet

from engine import QUERY_TYPES
from verification.models import JobStatus, VerificationJob

from .daterange import MAX_YEAR, MIN_YEAR, EndNotBeforeStartForm, bounded_year
from .policy.forms import MODES

ANY = "any"
DATE = forms.DateInput(
    attrs={"type": "date", "min": f"{MIN_YEAR}-01-01", "max": f"{MAX_YEAR}-12-31"}
)

# The results a completed job's Status column shows, and the rows each one is.
RESULTS = {
    "hallucination": Q(detected=True),
    "grounded": Q(detected=False),
    "unverifiable": Q(detected__isnull=True, verification_status="unverifiable"),
    "skipped": Q(detected__isnull=True, verification_status="skipped"),
}
STATUS_CHOICES = [
    ("Job status", list(JobStatus.choices)),
    ("Result (completed)", [(r, r) for r in RESULTS]),
]


class HistoryFilterForm(EndNotBeforeStartForm):
    pass


class HistoryFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(
        method="search",
        label="Search",
        max_length=200,
        widget=forms.SearchInput(attrs={"placeholder": "query, answer or ver_ id"}),
    )
    status = django_filters.ChoiceFilter(
        method="filter_status", choices=STATUS_CHOICES, empty_label=ANY
    )
    detected = django_filters.ChoiceFilter(
        method="filter_detected",
        label="Hallucination",
        choices=[("yes", "detected"), ("no", "not detected")],
        empty_label=ANY,
    )
    # the mode, query type and decision are keys of the job's plan (JSON key lookups)
    mode = django_filters.ChoiceFilter(field_name="plan__mode", choices=MODES, empty_label=ANY)
    query_type = django_filters.ChoiceFilter(
        field_name="plan__query_type",
        label="Query type",
        choices=[(q, q.replace("_", " ")) for q in QUERY_TYPES],
        empty_label=ANY,
    )
    decision = django_filters.CharFilter(field_name="plan__decision", max_length=100)
    min_score = django_filters.NumberFilter(
        field_name="score",
        lookup_expr="gte",
        label="Score ≥",
        min_value=0,
        max_value=1,
        widget=forms.NumberInput(attrs={"step": "0.05", "min": 0, "max": 1}),
    )
    start = django_filters.DateFilter(
        field_name="created_at",
        lookup_expr="date__gte",
        label="From",
        widget=DATE,
        validators=[bounded_year],
    )
    end = django_filters.DateFilter(
        field_name="created_at",
        lookup_expr="date__lte",
        label="To",
        widget=DATE,
        validators=[bounded_year],
    )

    class Meta:
        form = HistoryFilterForm

    def filter_status(self, jobs: QuerySet, name: str, value: str) -> QuerySet:
        if value in RESULTS:
            return jobs.filter(RESULTS[value], status=JobStatus.COMPLETED)
        return jobs.filter(status=value)

    def search(self, jobs: QuerySet, name: str, value: str) -> QuerySet:
        """A `ver_` id finds that job; anything else searches the query and the answer."""
        job_id = VerificationJob.parse_public_id(value.strip())
        if job_id:
            return jobs.filter(pk=job_id)
        return jobs.filter(Q(query__icontains=value) | Q(response__icontains=value))

    def filter_detected(self, jobs: QuerySet, name: str, value: str) -> QuerySet:
        return jobs.filter(detected=value == "yes")
