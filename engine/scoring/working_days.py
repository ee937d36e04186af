"""Dates counted in working days: "Installation takes 4 working days; earliest start
Monday 9 June" ends on Thursday 12 June; "dispatched within 3 business days of 5 March".

Weekends are skipped; public holidays are not known and not skipped. A date without its
year is placed in a year where it falls on the weekday written beside it ("Monday 9
June"), or in a year the context states; without either its weekday is unknown and
nothing is worked out from it.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable

_COUNT = re.compile(r"\b(\d{1,3})\s+(?:working|business|work)\s+days?\b", re.IGNORECASE)
_WEEKDAY = re.compile(
    r"\b(mon|tues|wednes|thurs|fri|satur|sun)day\b[\s,]*(?:the\s+)?$", re.IGNORECASE
)
_WEEKDAYS = ("mon", "tues", "wednes", "thurs", "fri", "satur", "sun")
_YEARS = range(2015, 2036)


def counts(texts: Iterable[str]) -> list[int]:
    """Every "N working days" or "N business days" the texts state."""
    return sorted({int(m.group(1)) for t in texts for m in _COUNT.finditer(t)})


def years_of(text: str, start: int, month: int, day: int, known: Iterable[int]) -> list[int]:
    """The years a date without its own year can be in: those where it falls on the
    weekday written just before it, else the years the context states."""
    m = _WEEKDAY.search(text[max(0, start - 16) : start])
    if m:
        weekday = _WEEKDAYS.index(m.group(1).lower())
        out = []
        for y in _YEARS:
            try:
                if datetime.date(y, month, day).weekday() == weekday:
                    out.append(y)
            except ValueError:
                continue
        return out
    return sorted(set(known))


def _step(start: datetime.date, n: int, sign: int) -> datetime.date:
    day = start
    while n > 0:
        day += datetime.timedelta(days=sign)
        if day.weekday() < 5:
            n -= 1
    return day


def ends(start: datetime.date, n: int) -> list[datetime.date]:
    """N working days after `start`, the Nth working day counting `start` itself (work that
    starts that day and takes N days ends then), and N working days before it."""
    out = [_step(start, n, 1), _step(start, n, -1)]
    if start.weekday() < 5 and n > 0:
        out.append(_step(start, n - 1, 1))
    return out
