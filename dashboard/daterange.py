"""The date range every overview and history filter shares (default: the last 30 days)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django import forms
from django.utils import timezone

PRESETS = (("7", "7 days"), ("30", "30 days"), ("90", "90 days"))
MAX_DAYS = 366


@dataclass(frozen=True)
class DateRange:
    start: dt.date  # inclusive
    end: dt.date  # inclusive
    preset: str = ""  # the PRESETS value this range came from, "" for a custom range

    @property
    def start_at(self) -> dt.datetime:
        return dt.datetime.combine(self.start, dt.time.min, tzinfo=dt.UTC)

    @property
    def end_before(self) -> dt.datetime:
        return dt.datetime.combine(self.end + dt.timedelta(days=1), dt.time.min, tzinfo=dt.UTC)

    def days(self) -> list[dt.date]:
        return [self.start + dt.timedelta(days=i) for i in range((self.end - self.start).days + 1)]


class DateRangeForm(forms.Form):
    start = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    end = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def clean(self):
        data = super().clean()
        start, end = data.get("start"), data.get("end")
        if start and end and start > end:
            raise forms.ValidationError("The start date must not be after the end date.")
        if start and end and (end - start).days > MAX_DAYS:
            raise forms.ValidationError(f"Pick at most {MAX_DAYS} days.")
        return data


def parse_range(params, default_days: int = 30) -> tuple[DateRange, DateRangeForm]:
    """The range asked for in `params` (`days`, or `start`/`end`), falling back to the default."""
    today = timezone.now().astimezone(dt.UTC).date()
    form = DateRangeForm(params)
    days = params.get("days")
    if days in dict(PRESETS):
        return _last_days(today, int(days)), form
    if form.is_valid() and (form.cleaned_data.get("start") or form.cleaned_data.get("end")):
        end = form.cleaned_data.get("end") or today
        start = form.cleaned_data.get("start") or end - dt.timedelta(days=default_days - 1)
        return DateRange(start, end), form
    return _last_days(today, default_days), form


def _last_days(today: dt.date, days: int) -> DateRange:
    return DateRange(today - dt.timedelta(days=days - 1), today, preset=str(days))
