"""Dates the dashboard accepts: the range every overview and history filter shares (default:
the last 30 days) and the billing month.

Every date a user types is bounded to `MIN_YEAR`..`MAX_YEAR`: a year like 9999 would
otherwise overflow the arithmetic that follows (the day after, the next month) and answer
500 instead of a form error.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone

from verification.billing.report import MAX_YEAR, MIN_YEAR

PRESETS = (("7", "7 days"), ("30", "30 days"), ("90", "90 days"))
MAX_DAYS = 366
OUT_OF_RANGE = f"Pick a date between {MIN_YEAR} and {MAX_YEAR}."


def bounded_year(value: dt.date) -> None:
    """Validator: the date's year is within MIN_YEAR..MAX_YEAR."""
    if not MIN_YEAR <= value.year <= MAX_YEAR:
        raise ValidationError(OUT_OF_RANGE, code="out_of_range")


def bounded_date_field(**kwargs) -> forms.DateField:
    return forms.DateField(
        required=False,
        validators=[bounded_year],
        widget=forms.DateInput(
            attrs={"type": "date", "min": f"{MIN_YEAR}-01-01", "max": f"{MAX_YEAR}-12-31"}
        ),
        **kwargs,
    )


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


class EndNotBeforeStartForm(forms.Form):
    """A filter form whose `start` and `end` dates may each be left out; an end before the
    start is an error on `end`, so the other filters still apply (django-filter drops only
    the invalid field)."""

    def clean(self):
        data = super().clean()
        start, end = data.get("start"), data.get("end")
        if start and end and start > end:
            self.add_error("end", "The end date must not be before the start date.")
        return data


class DateRangeForm(forms.Form):
    start = bounded_date_field(label="From")
    end = bounded_date_field(label="To")

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


def form_errors(form: forms.Form) -> list[str]:
    """Every error of a bound form as one flat list (field errors named by their label)."""
    out: list[str] = []
    for name, errors in form.errors.items():
        label = form.fields[name].label if name in form.fields else ""
        out.extend(f"{label}: {e}" if label else e for e in errors)
    return out


class MonthForm(forms.Form):
    """A billing month `YYYY-MM` within MIN_YEAR..MAX_YEAR."""

    month = forms.RegexField(regex=r"^\d{4}-\d{2}$", error_messages={"invalid": "Use YYYY-MM."})

    def clean_month(self) -> str:
        value = self.cleaned_data["month"]
        try:
            parsed = dt.datetime.strptime(value, "%Y-%m").date()
        except ValueError as exc:
            raise ValidationError("Use YYYY-MM with a month from 01 to 12.") from exc
        bounded_year(parsed)
        return value


def parse_month(value: str | None, default: str) -> tuple[str, list[str]]:
    """The month asked for (or `default` when none is), and the errors when it is not valid;
    an invalid month falls back to `default` so the page can still be drawn."""
    if not value:
        return default, []
    form = MonthForm({"month": value})
    if form.is_valid():
        return form.cleaned_data["month"], []
    return default, [f"{value!r} is not a month we can show: {e}" for e in form.errors["month"]]


def _last_days(today: dt.date, days: int) -> DateRange:
    return DateRange(today - dt.timedelta(days=days - 1), today, preset=str(days))
