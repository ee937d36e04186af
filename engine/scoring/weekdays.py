"""Weekdays judged by the calendar, not by the words the context happens to use.

An answer that counts dates ("Day 3 is Wednesday 9 October" from "Day 1 (Monday 7
October)", "changes by Wednesday 9 December" from "delivery Friday 11 December") names
weekdays the context never writes. Such a weekday is a contradiction only when the
calendar says so:

* a weekday the user's question states is theirs to restate;
* a weekday written beside a date ("Wednesday 9 October", "Thursday 13th") is right when
  that date falls on it in a year the context allows: the years where each of the
  context's own weekday-and-date pairs fits, else the years it states. The date itself
  is judged by the date check. Where the date falls on another weekday in every such
  year, the conflict stands;
* a weekday alone in a clause that restates the context's sentence ("the market opens
  every Friday" against "opens every Tuesday") is contradicted; one in a clause of its
  own ("and should reach you on Tuesday", "ends early on Sunday") may be counted from a
  stated day, so the check cannot settle it: it is `absent`, not a contradiction.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from dataclasses import replace

from ..text.sentences import clause_spans
from ..text.words import content_keys
from .findings import Finding
from .typed_values import MONTHS, values

_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = re.compile(r"\b(" + "|".join(_NAMES) + r")\b", re.IGNORECASE)
_YEAR = re.compile(r"(?<!\d)(20[1-3]\d)(?!\d)")
_YEARS = range(2015, 2036)
#: A weekday alone contradicts the context's when its clause shares this many content
#: words with the context's sentence ("the market opens every Friday").
SHARED = 2
#: A day of the month alone after a weekday ("Thursday 13th", "Friday the 14th").
_DAY_ONLY = re.compile(r"[\s,]*(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)\b", re.IGNORECASE)
_MONTH = re.compile(r"\b(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\b", re.I)


def _date_beside(text: str, end: int) -> tuple[int, int, int | None] | None:
    """(month, day, year) of a date written just after the weekday ending at `end`."""
    for v in values(text):
        if v.kind == "date" and end <= v.start <= end + 3 and not text[end : v.start].strip(" ,"):
            return v.canon[0], v.canon[1], v.canon[2]
    m = _DAY_ONLY.match(text, end)
    if m:
        months = [MONTHS[x.group(1).lower()] for x in _MONTH.finditer(text, 0, end)]
        if months:
            return months[-1], int(m.group(1)), None
    return None


def _fits(year: int, month: int, day: int, weekday: int) -> bool:
    try:
        return datetime.date(year, month, day).weekday() == weekday
    except ValueError:
        return False


def _restated(answer: str, f: Finding, context: Sequence[str]) -> bool:
    """Whether the answer's clause around the weekday restates the context sentence
    the finding compares it with (`SHARED` content words besides weekdays)."""
    if f.evidence is None:
        return False
    i, lo, hi = f.evidence
    clause = next(((s, e) for s, e in clause_spans(answer) if s <= f.start < e), (f.start, f.end))
    days = set(content_keys(" ".join(_NAMES)))
    mine = content_keys(answer[clause[0] : clause[1]]) - days
    return len(mine & content_keys(context[i][lo:hi])) >= SHARED


def allowed_years(texts: Sequence[str]) -> set[int]:
    """The years the texts' weekday-and-date pairs all fit, else the years they state."""
    years = set(_YEARS)
    paired = False
    for text in texts:
        for m in _WEEKDAY.finditer(text):
            date = _date_beside(text, m.end())
            if date is None:
                continue
            month, day, year = date
            weekday = _NAMES.index(m.group(1).lower())
            fit = {y for y in ([year] if year else _YEARS) if _fits(y, month, day, weekday)}
            if fit & years:
                years &= fit
                paired = True
    if paired:
        return years
    return {int(y) for t in texts for y in _YEAR.findall(t)}


def judge(
    findings: Sequence[Finding], context: Sequence[str], answer: str, query: str | None = None
) -> list[Finding]:
    """`findings` with every weekday conflict judged by the calendar (see the module)."""
    out: list[Finding] = []
    years: set[int] | None = None
    asked = {m.group(1).lower() for m in _WEEKDAY.finditer(query or "")}
    for f in findings:
        word = answer[f.start : f.end].lower()
        if f.kind != "class" or f.verdict != "conflict" or word not in _NAMES:
            out.append(f)
            continue
        if word in asked:
            continue
        date = _date_beside(answer, f.end)
        if date is None and _restated(answer, f, context):
            out.append(f)  # "opens every Friday" against "opens every Tuesday"
            continue
        if date is None:
            reason = (
                f"weekday not confirmed: the context does not state '{answer[f.start : f.end]}'"
            )
            out.append(replace(f, verdict="absent", reason=reason))
            continue
        if years is None:
            years = allowed_years([*context, query or ""])
        month, day, year = date
        candidates = {year} if year else years
        if not candidates:
            out.append(replace(f, verdict="absent", reason="weekday not confirmed: no year known"))
        elif not any(_fits(y, month, day, _NAMES.index(word)) for y in candidates):
            # the date beside it falls on another weekday in every year the context allows
            reason = f"wrong weekday: {day}/{month} is not a {word.title()} in {min(candidates)}"
            out.append(replace(f, reason=reason))
    return out
