"""Values an answer works out from what the context and the question state.

A value the context does not state may still be right: a sum, difference, product or
ratio of stated figures, a rate times its period, a total spelled out in the answer's own
sentence, a date plus or minus days, a time plus a duration stated beside it. The typed
checks (`typed_checks`) call `derived` and its kin before they call a value a conflict
or absent.
"""

from __future__ import annotations

import datetime
import itertools
import re
from collections.abc import Callable, Sequence
from typing import Any

from ..text.sentences import sentence_at, split_sentences
from . import working_days
from .alignment import sentence_around
from .typed_values import (
    MONEY,
    Value,
    compatible,
    exactly_equal,
    rounded_equal,
    values,
)


def comparable(a: Value, b: Value) -> bool:
    if a.kind != b.kind:
        return False
    if a.kind == "quantity":
        return a.unit is not None and b.unit is not None and compatible(a.unit, b.unit)
    return True


def with_years(found: list[Value]) -> list[Value]:
    """A full date also states its year ("2025-03-04" supports "in 2025")."""
    years = [
        Value(v.start, v.end, "year", (v.canon[2],))
        for v in found
        if v.kind == "date" and v.canon[2]
    ]
    return found + years


#: Words that mark a figure as approximate ("about $150 in spending altogether").
APPROXIMATE = re.compile(
    r"\b(?:about|around|roughly|approximately|nearly|almost|some|just\s+(?:over|under))\s*$|~\s*$",
    re.IGNORECASE,
)


def derived(
    value: Value,
    stated: list[tuple[int, str, Value]],
    asked: Sequence[Value] = (),
    approximate: bool = False,
    change: bool = False,
) -> bool:
    """Whether a quantity is the difference or the sum of two comparable stated ones, the
    sum of all of them ("fell by 23 minutes" from 94 to 71; a total of transactions), or a
    stated rate times a quantity `asked` in the user's question ("€5 per month" for "two
    months" is €10), or a time is a stated time plus a stated duration."""
    if value.kind == "time":  # the user's own times and durations count as the answer's
        mine = [(-3, "", v) for v in asked if v.kind in ("time", "quantity")]
        return _time_plus_duration(value, stated + mine)
    if value.kind == "date":
        return _date_plus_days(value, stated)
    if value.kind == "year":
        return _year_derived(value, stated)
    if value.kind != "quantity" or value.unit is None:
        return False
    if _time_difference(value, stated):
        return True
    target = value.base()
    if value.unit in MONEY and _converted(target, stated, asked, approximate):
        return True
    nums = [c[2].base() for c in stated if c[0] != -2 and comparable(value, c[2])][:40]
    nums += [v.base() for v in asked if comparable(value, v)]
    # one operand per amount: the answer restating a stated $900k is not a second $900k
    nums = list(dict.fromkeys(nums))
    # the answer's own confirmed values (index -2) take part in one step only: a sum or
    # a difference of two; in totals of three they would make most wrong sums hit
    steps = list(
        dict.fromkeys(
            nums + [c[2].base() for c in stated if c[0] == -2 and comparable(value, c[2])]
        )
    )
    # a count is a plain number or a number of things, never an amount of money or a
    # percentage: "$4.00 per fill" times "$4.00" is no total
    counts = [
        float(v.canon[0])
        for v in asked
        if v.kind == "quantity" and 1 < v.canon[0] <= 1000 and v.unit not in _NOT_COUNTS
    ]
    # a rate per day, week or month, stated as such, times the days of a week or the
    # months of a year ("£1,200 a month" is £14,400 a year); not any amount times 7
    periodic = [c[2].base() for c in stated if comparable(value, c[2]) and _per_period(c)]
    if any(_QUARTERLY.search(c[1]) for c in stated):  # "£28,000 per annum, payable quarterly"
        counts += [4.0, 0.25]

    def close(x: float) -> bool:  # worked out exactly, or rounded where the answer says so
        return rounded_equal(x, target) if approximate else exactly_equal(x, target)

    if any(close(a * n) for a in nums for n in counts):
        return True
    if any(close(a * n) or close(a / n) for a in periodic for n in _CALENDAR_FACTORS):
        return True
    if _spelled_out_sum(value, stated, counts, close):
        return True
    if _scaled(value, nums, stated, asked, close, change):
        return True
    if len(nums) > 2 and close(sum(nums)):
        return True
    if any(close(abs(a - b)) or close(a + b) for k, a in enumerate(steps) for b in steps[k + 1 :]):
        return True
    # three amounts added or taken away ("$1,476.91 across three payments"; a balance of
    # $1,250.40 less pending $200.00 and $50.40); money only, where cents make a chance
    # hit unlikely
    return value.unit in MONEY and any(
        close(a + b + c) or close(abs(a - b - c)) or close(abs(a + b - c))
        for x, y, z in itertools.combinations(nums[:25], 3)
        for a, b, c in ((x, y, z), (y, x, z), (z, x, y))
    )


#: A number the context gives as an exchange rate ("1 USD = 0.92 EUR", "rates": {"EUR": 1.06}).
_RATE_CUE = re.compile(
    r"(?:\b(?:rates?|fx|exchange|conversion|converted)\b|=)(?:[^.\n]|\.(?=\d)){0,60}$", re.I
)


def _converted(
    target: float, stated: list[tuple[int, str, Value]], asked: Sequence[Value], approximate: bool
) -> bool:
    """Whether a money value is an amount the context, the question or the answer states
    (in any currency) converted at an exchange rate the context gives: "2,500 CHF" at
    "EUR": 1.0642 is €2,660.50."""
    rates = {
        float(v.canon[0])
        for i, passage, v in stated
        if i >= 0
        and v.kind == "quantity"
        and (v.unit is None or v.unit in MONEY)
        and 0 < v.canon[0] < 1000
        and float(v.canon[0]) != int(v.canon[0])
        and _RATE_CUE.search(passage[max(0, v.start - 80) : v.start])
    }
    if not rates:
        return False
    amounts = {
        float(v.canon[0])
        for v in [c[2] for c in stated] + list(asked)
        if v.kind == "quantity" and (v.unit is None or v.unit in MONEY) and v.canon[0] > 1
    }

    def close(x: float) -> bool:
        return rounded_equal(x, target) if approximate else abs(x - target) < 0.005 + 1e-9

    return any(close(a * r) or close(a / r) for a in amounts for r in rates)


def _scaled(
    value: Value,
    nums: list[float],
    stated: list[tuple[int, str, Value]],
    asked: Sequence[Value],
    close: Callable[[float], bool],
    change: bool,
) -> bool:
    """A value worked out from a comparable one and a plain number or a percentage:
    a rate times a count the answer or context states ("8 paid hours a day ... 40 hours
    over the five-day week"), a share of a whole ("$80 split four ways" is $20), a
    percentage of an amount, an amount after a rise or a discount ("$50 less 20%" is
    $40), or, for a percentage said as a change or a share (`change`), the change or
    share between two comparable amounts."""
    every = [c[2] for c in stated] + list(asked)
    # a multiplier is stated beside the result (the answer's own sentence) or asked about;
    # any number of the context would make nearly every wrong value a product of two
    beside = [c[2] for c in stated if c[0] == -1] + list(asked)
    factors = {
        float(v.canon[0])
        for v in beside
        if v.kind == "quantity" and v.unit not in MONEY and v.unit != "%" and 1 < v.canon[0] <= 1000
    }
    percents = {float(v.canon[0]) for v in every if v.kind == "quantity" and v.unit == "%"}
    for a in nums:
        if any(close(a * n) or close(a / n) for n in factors):
            return True
        if any(close(a * p / 100) or close(a * (1 + p / 100)) or close(a * (1 - p / 100))
               for p in percents):  # fmt: skip
            return True
    if value.unit != "%" or not change:
        return False
    amounts: dict[str | None, list[float]] = {}
    for v in every:
        if v.kind == "quantity" and v.unit != "%" and v.canon[0]:
            amounts.setdefault(v.unit, []).append(v.base())
    return any(
        close(abs(a - b) / b * 100) or close(a / b * 100)
        for group in amounts.values()
        for a in group[:20]
        for b in group[:20]
        if a != b
    )


#: Words that present a value as the result of a calculation ("so the total is", "which
#: comes to", "adding up to"): a value the check cannot derive after them is unsettled.
WORKED_OUT = re.compile(
    r"\b(?:total\w*|altogether|in\s+all|combined|overall|comes?\s+to|came\s+to|coming\s+to|"
    r"works?\s+out|worked\s+out|adds?\s+up|adding\s+up|sum|which\s+(?:is|means|makes)|"
    r"that(?:'s|’s|\s+is|\s+makes|\s+means)|making|remaining|difference|sav(?:e|es|ing|ings)|"
    r"average|averag\w+)\b|[=×÷]",
    re.IGNORECASE,
)
#: Words that say a percentage is a change or a share ("up 12%", "a 20% saving", "30%
#: of the total"), not a probability or a rate stated on its own.
CHANGE = re.compile(
    r"\b(?:increas\w*|decreas\w*|ris(?:e|es|ing)|rose|f[ae]ll\w*|up|down|gr[eo]w\w*|drop\w*|"
    r"cut|cheaper|dearer|sav\w*|discount\w*|off|more|less|higher|lower|share|portion|"
    r"proportion|fraction|of\s+(?:the|all|its|their|your)\s+\w+|change\w*|gain\w*|loss\w*)\b",
    re.IGNORECASE,
)
#: A rate per minute, day, week or month stated per hour, week, month or year: "£1,200 a
#: month" is £14,400 a year, "2 doses a day" is 14 a week, "45 L/min" is 2,700 litres an hour.
#: A payment made each quarter (not "third-quarter revenue").
_QUARTERLY = re.compile(r"\bquarterly\b|\b(?:per|a|each|every)\s+quarter\b", re.IGNORECASE)
_CALENDAR_FACTORS = (7.0, 12.0, 24.0, 52.0, 60.0, 365.0)
#: Units that are amounts, not counts of things.
_NOT_COUNTS = frozenset({*MONEY, "%"})
#: A rate stated per period: "£1,200 a month", "$12 per day", "daily limit of 2 g".
_PERIOD_AFTER = re.compile(
    r"^(?:\s+[\w-]+){0,4}?\s*(?:a|an|per|each|every|/)\s*"
    r"(?:minute|min|hour|day|night|week|month|year|annum)\b"
    r"|^\s*(?:hourly|daily|nightly|weekly|monthly|yearly|annually|p\.?a\.?)\b"
    r"|^\s*(?:per_|/)?(?:min|hour|day|night|week|month|year)",
    re.IGNORECASE,
)
_PERIOD_BEFORE = re.compile(
    r"\b(?:hourly|daily|nightly|weekly|monthly|yearly|annual|per_(?:hour|day|night|week|month|year))"
    r"\w*[\s\"':_a-z]{0,25}$",
    re.IGNORECASE,
)


def _per_period(stated: tuple[int, str, Value]) -> bool:
    """Whether a stated value is given per hour, day, week, month or year."""
    _, passage, v = stated
    return bool(
        _PERIOD_AFTER.search(passage[v.end : v.end + 20])
        or _PERIOD_BEFORE.search(passage[max(0, v.start - 40) : v.start])
        or _PERIOD_AFTER.search(passage[v.end : v.end + 40].split(".")[0])
    )


def _spelled_out_sum(
    value: Value,
    stated: list[tuple[int, str, Value]],
    counts: Sequence[float],
    close: Callable[[float], bool],
) -> bool:
    """A total the answer works out in the open: every comparable amount its sentence
    states before the total, each possibly times a count, added up ("5 days at €38.00 a
    day, plus €37.50 and €25.00, bringing it to €252.50"), or with one of them taken
    away. Only the sentence's own operands take part, and all of them, so neither a
    chance combination of the context's figures nor a total that leaves out a listed
    charge passes."""
    terms = list(
        dict.fromkeys(
            c[2].base()
            for c in stated
            if c[0] == -1 and c[2].end <= value.start and comparable(value, c[2])
        )
    )
    if not 2 <= len(terms) <= 6:
        return False
    options = [[t, *(t * n for n in counts)] for t in terms]
    for picks in itertools.product(*options):
        total = sum(picks)
        if close(total) or any(close(total - 2 * x) for x in picks):
            return True
    return False


_COUNT_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "twice": 2, "both": 2, "pair": 2, "couple": 2,
}  # fmt: skip


def own_operands(answer: str, value: Value) -> list[Value]:
    """The other values of the answer's sentence around `value`, and its counts ("your
    party of four"): a worked-out value is often stated beside what it was worked out
    from ("$20 per person, or $80 for your party of four"; "a 50-minute class from 7 pm,
    ending at 7:50"). A wrong operand is checked on its own."""
    # split_sentences, not sentence_around: "$11.99 × 12" must stay one sentence
    around = sentence_at(split_sentences(answer), value.start, value.end)
    lo, hi = (around.start, around.end) if around is not None else (0, len(answer))
    sentence = answer[lo:hi]
    own = [
        Value(v.start + lo, v.end + lo, v.kind, v.canon, v.unit)
        for v in values(sentence)
        if (v.start + lo, v.end + lo) != (value.start, value.end)
    ]
    for m in re.finditer(r"[A-Za-z]+", sentence):
        n = _COUNT_WORDS.get(m.group().lower())
        if n is not None:
            own.append(Value(lo + m.start(), lo + m.end(), "quantity", (float(n),), None))
    return own


def _whole_days(v: Value) -> bool:
    """A number of hours that is whole days ("within 48 hours" of a date is 2 days)."""
    return v.unit == "h" and v.canon[0] >= 24 and v.base() % 86400 == 0


def _date_plus_days(value: Value, stated: list[tuple[int, str, Value]]) -> bool:
    """A date that is a stated date plus or minus a stated number of days or weeks, or of
    hours that make whole days ("net 30 days" from 1 March is 31 March; "72 hours before"
    15 November is 12 November; shipped 26 February, 5 transit days: 2 March; 14
    days before 1 March is 15 February)."""
    month, day, year = value.canon
    dates = [c[2].canon for c in stated if c[2].kind == "date"][:20]
    spans = [round(c[2].base() / 86400) for c in stated if c[2].kind == "quantity"
             and (c[2].unit in ("d", "wk") or _whole_days(c[2]))][:20]  # fmt: skip
    net = _net_days(stated)
    terms = _months(stated)
    for m, d, y in dates:
        try:
            start = datetime.date(y or year or 2001, m, d)
        except ValueError:
            continue
        # a number of days after a date, or before it ("apply 14 days before 1 March")
        ends = [start + datetime.timedelta(days=n) for n in spans]
        ends += [start - datetime.timedelta(days=n) for n in spans]
        ends += [start + datetime.timedelta(days=n) for n, anchors in net if (m, d, y) in anchors]
        for n in terms:  # a term of N months from a date ends then, or the day before
            later = _add_months(start, n)
            if later is not None:
                ends += [later, later - datetime.timedelta(days=1)]
        for then in ends:
            if (then.month, then.day) == (month, day) and (year is None or then.year == year):
                return True
    return _working_days_later(value, stated)


def _working_days_later(value: Value, stated: list[tuple[int, str, Value]]) -> bool:
    """A date a stated number of working days from a stated date (`working_days`)."""
    month, day, year = value.canon
    texts = {id(p): p for _, p, _ in stated}.values()
    numbers = working_days.counts(texts)
    if not numbers:
        return False
    known = [v.canon[0] for _, _, v in stated if v.kind == "year"]
    for _, passage, v in stated:
        if v.kind != "date":
            continue
        m, d, own_year = v.canon
        years = [own_year] if own_year else working_days.years_of(passage, v.start, m, d, known)
        for y in years:
            try:
                start = datetime.date(y, m, d)
            except ValueError:
                continue
            for n in numbers:
                for then in working_days.ends(start, n):
                    if (then.month, then.day) == (month, day) and year in (None, then.year):
                        return True
    return False


#: "Payment terms: net 30" is 30 days.
_NET_TERMS = re.compile(r"\bnet[\s-]+(\d{1,3})\b(?!\s*(?:%|percent))", re.IGNORECASE)


def _net_days(stated: list[tuple[int, str, Value]]) -> list[tuple[int, set[tuple[Any, ...]]]]:
    """(days, the dates of its sentence) for each "net N" payment term: the term counts
    from the invoice date it names, not from any date of the document."""
    out = []
    passages = {id(p): p for i, p, _ in stated if i >= 0}.values()
    for p in passages:
        for m in _NET_TERMS.finditer(p):
            lo, hi = sentence_around(p, m.start(), m.end())
            anchors = {v.canon for v in values(p[lo:hi]) if v.kind == "date"}
            if not anchors:  # "Payment terms: Net 45" on a line of its own: the document's dates
                anchors = {v.canon for v in values(p) if v.kind == "date"}
            out.append((int(m.group(1)), anchors))
    return out


def _months(stated: list[tuple[int, str, Value]]) -> list[int]:
    """Stated terms in whole months: "a 12-month term", "10 years", "twenty-four months"."""
    out = []
    for c in stated:
        v = c[2]
        if v.kind == "quantity" and v.unit in ("mo", "y") and 0 < v.canon[0] <= 100:
            n = float(v.canon[0]) * (12 if v.unit == "y" else 1)
            if n == int(n):
                out.append(int(n))
    return out[:20]


def _add_months(start: datetime.date, months: int) -> datetime.date | None:
    total = start.month - 1 + months
    year, month = start.year + total // 12, total % 12 + 1
    try:
        return start.replace(year=year, month=month)
    except ValueError:
        return None


#: A context that counts years relative to its own ("up from 9,870 last year").
_RELATIVE_YEAR = re.compile(
    r"\b(?:last|next|previous|prior|following)\s+year\b|\ba\s+year\s+(?:earlier|later|ago|before)\b",
    re.IGNORECASE,
)


def _year_derived(value: Value, stated: list[tuple[int, str, Value]]) -> bool:
    """A year that is a stated date's or year's plus a stated term ("12-month term" from
    14 March 2026: renewal in 2027; "24 months from 1 March 2023": ends in 2025), or one
    year off one the context names where it counts years relatively ("last year")."""
    (target,) = value.canon
    years = {c[2].canon[2] for c in stated if c[2].kind == "date" and c[2].canon[2]}
    years |= {c[2].canon[0] for c in stated if c[2].kind == "year"}
    steps = {-(-n // 12) for n in _months(stated)} | {n // 12 for n in _months(stated)}
    relative = any(_RELATIVE_YEAR.search(p) for i, p, _ in stated if i >= 0)
    if relative:
        steps |= {1}
    return any(abs(target - y) == n for y in years for n in steps if n > 0)


def _time_plus_duration(value: Value, stated: list[tuple[int, str, Value]]) -> bool:
    """A time that is a stated time plus or minus a stated duration ("2:30 pm, 45
    minutes": done by 3:15 pm; "boarding closes 20 minutes before the 14:10 departure":
    at the gate by 13:50). The duration is stated beside the result (the answer's own sentence) or
    in the same sentence as the time: any time of a timetable plus any duration it names
    ("a 15-minute break") would pass most wrong times."""
    times = [c for c in stated if c[2].kind == "time"]
    durations = [c for c in stated if c[2].kind == "quantity" and c[2].unit in ("min", "h")]
    minutes = value.canon[0] * 60 + value.canon[1]
    return any(
        (t.canon[0] * 60 + t.canon[1] + sign * round(d.base() / 60) - minutes) % (12 * 60) == 0
        and _together((i, passage, t), (j, theirs, d))
        for sign in (1, -1)
        for i, passage, t in times
        for j, theirs, d in durations
    )


def _together(time: tuple[int, str, Value], duration: tuple[int, str, Value]) -> bool:
    """Whether a duration may be added to a time: it is the answer's own operand or the
    user's, or both stand in one sentence (or line) of the same passage."""
    (i, passage, t), (j, _, d) = time, duration
    if j < 0:  # the answer's own operand, or the user's
        return True
    return i == j and sentence_around(passage, t.start, t.end) == sentence_around(
        passage, d.start, d.end
    )


#: Words that make a clock time approximate ("just before 8am" for 07:55).
_ABOUT_TIME = re.compile(
    r"\b(?:about|around|approximately|roughly|just\s+(?:before|after)|shortly\s+(?:before|after)|"
    r"a\s+little\s+(?:before|after))\s*$",
    re.IGNORECASE,
)
#: How far an approximate time may be from the stated one.
ABOUT_TIME_MINUTES = 15


def approximate_time(answer: str, value: Value, stated: list[tuple[int, str, Value]]) -> bool:
    """Whether a time the answer gives as approximate is within `ABOUT_TIME_MINUTES` of a
    stated time ("just before 8am" for 07:55)."""
    if value.kind != "time" or not _ABOUT_TIME.search(
        answer[max(0, value.start - 25) : value.start]
    ):
        return False
    minutes = value.canon[0] * 60 + value.canon[1]
    return any(
        abs(c[2].canon[0] * 60 + c[2].canon[1] - minutes) <= ABOUT_TIME_MINUTES
        for c in stated
        if c[2].kind == "time"
    )


def asked_hour(value: Value, query: str | None) -> bool:
    """Whether a whole-hour time restates an hour the user's question names as a bare
    number ("free between 9 and 5": "until 5 pm")."""
    if not query or value.kind != "time" or value.canon[1] != 0:
        return False
    hours = {int(h) % 12 for h in re.findall(r"(?<![\d:.,])(1[0-2]|[1-9])(?![\d:.,])", query)}
    return (
        value.canon[0] % 12 in hours
        and re.search(r"\b(?:between|from|until|till|to|after|before|at)\b", query, re.I)
        is not None
    )


def _time_difference(value: Value, stated: list[tuple[int, str, Value]]) -> bool:
    """A duration that is the time between two stated times ("departs 08:21, arrives
    08:49": a 28-minute journey; "10:05 scheduled, 10:50 expected": 45 minutes late)."""
    if value.unit not in ("min", "h", "s"):
        return False
    minutes = value.base() / 60
    times = sorted({c[2].canon[0] * 60 + c[2].canon[1] for c in stated if c[2].kind == "time"})[:40]
    return any(
        abs(((b - a) % (24 * 60)) - minutes) < 0.5 or abs(((a - b) % (24 * 60)) - minutes) < 0.5
        for k, a in enumerate(times)
        for b in times[k + 1 :]
    )
