"""The answer's own arithmetic: a result that its own figures do not give.

"Two adult tickets come to $36 and three child tickets to $33, so the total is $79",
"departs at 09:04 … takes 1 hour 52 minutes to reach Marseille at 10:46", "valid for 30
days from 3 June, so until 3 August": the answer states the operands and the result in
one sentence, and they do not compute. The value checks cannot settle such a result
against the context (it is worked out, and a wrong sum and a sum of operands they cannot
see look the same), but the answer's own sentence can.

For each value that a result cue introduces ("so the total is", "comes to", "a delay
of", "leaving", "until", "… more than", "… behind"), the results of one step over the
other values of its sentence are worked out: sums (of two, or of every amount of its
unit), differences, a count times a rate, a share as a percentage, percentage points,
the time between two clock times, a clock time plus or minus a duration, a date plus or
minus days, weeks, months or years. When one of them equals the stated result, the
answer is consistent. When none does but one comes close (`NEAR` of the result, or
within `NEAR_MINUTES` / `NEAR_DAYS`), that one is what the answer's own figures give,
and the result is a `contradiction` whose reason says so. Business and working days are
not counted (the weekday is unknown), and a sentence with more than `MAX_VALUES` values
is left alone: with many figures some step always comes close.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Sequence
from itertools import combinations, permutations

from ..text.sentences import split_sentences
from .findings import Finding
from .typed_values import Value, rounded_equal, values

#: A result within this share of a step's result, and not equal to it, is that step gone wrong.
NEAR = 0.15
NEAR_MINUTES = 30
NEAR_DAYS = 31
MAX_VALUES = 6
#: "13 more than Team Alpha's 42": what a result is compared with follows it closely.
AFTER_REACH = 30
_RESULT_VERB = (
    r"(?:is|are|was|were|comes?\s+to|came\s+to|would\s+(?:be|come\s+to|cost)|totals?|costs?|"
    r"(?:would\s+|will\s+|['’]d\s+|['’]ll\s+)?(?:pay|save|spend|owe|get\s+back)|"
    r"(?:runs?|stays?\s+valid|lasts?)\s+until|until|by|adds?\s+up\s+to|amounts?\s+to)"
)
_BEFORE = re.compile(
    r"(?:\bso\b(?:\s+[\w'’]+){0,5}?\s+" + _RESULT_VERB + r"|"
    r"\btotal(?:s|ling)?(?:\s+(?:is|of|was|comes?\s+to))?|"
    r"\b(?:comes?|came|adds?\s+up|amounts?)\s+to|\bin\s+total\s+(?:of\s+)?|\baltogether|"
    r"\b(?:which|that)\s+(?:is|was|makes|comes\s+to)|\bthat['’]s|"
    r"\b(?:a|an|the)\s+(?:delay|gap|difference|saving|return\s+rate|flight\s+time|"
    r"journey\s+time)\s+of|\bleaving)(?:\s+(?:just|only|roughly|about|around|some))?\s*$",
    re.IGNORECASE,
)
_AFTER = re.compile(
    r"^\s*(?:more|fewer|less|longer|shorter|higher|lower|later|earlier)\s+than\b"
    r"|^\s*(?:behind|late)\b"
    r"|^\s*(?:\w+\s+)?(?:in\s+total|altogether)\b",
    re.IGNORECASE,
)
_BUSINESS = re.compile(r"\b(?:business|working|school|banking)\s+(?:day|hour)", re.IGNORECASE)
_YEARLY = re.compile(
    r"\b(?:a|per|each|every|the)\s+(?:full\s+)?year\b|\bannual(?:ly)?\b|\byearly\b", re.IGNORECASE
)
_MONTHLY = re.compile(r"\b(?:a|per|each|every)\s+month\b|\bmonthly\b", re.IGNORECASE)
_PRICE_BEFORE = re.compile(r"(?:\bat|@|\bfor)\s*$", re.IGNORECASE)
_PRICE_AFTER = re.compile(
    r"\s+(?:each|apiece|a\s+(?:piece|unit|day|night|month)|per\b)", re.IGNORECASE
)
_TIME_UNITS = frozenset({"s", "min", "h", "d", "wk", "mo", "yr"})


def arithmetic_findings(answer: str, taken: Sequence[Finding] = ()) -> list[Finding]:
    """A `contradiction` for each result of the answer that its own sentence's figures
    miss by a little (see the module doc). Values another finding judged are left alone."""
    out: list[Finding] = []
    for sentence in split_sentences(answer):
        text = answer[sentence.start : sentence.end]
        if _BUSINESS.search(text):
            continue
        found = [
            _counted(_shift(v, sentence.start), answer)
            for v in values(text)
            # "2:23:05" is a race time, not a clock time: the previous sentence may hold
            # what it is compared with
            if not (v.kind == "time" and text[v.start : v.end].count(":") > 1)
        ]
        if not 3 <= len(found) <= MAX_VALUES:
            continue
        priced = frozenset(
            v.start
            for v in found
            if _PRICE_BEFORE.search(answer[max(0, v.start - 4) : v.start])
            or _PRICE_AFTER.match(answer, v.end)
        )
        for result in found:
            if any(f.start < result.end and result.start < f.end for f in taken):
                continue
            before = answer[max(sentence.start, result.start - 45) : result.start]
            after = answer[result.end : min(sentence.end, result.end + 25)]
            if _AFTER.search(after):  # "£36 more than the £420 fee": operands on both sides
                others = [
                    v for v in found if v is not result and v.start <= result.end + AFTER_REACH
                ]
            elif _BEFORE.search(before):  # "… so the total is $79": operands before it
                others = [v for v in found if v.end <= result.start]
            else:
                continue
            if _YEARLY.search(text) and _MONTHLY.search(text):
                others.append(Value(0, 0, "quantity", (12.0,), None))  # months of a year
            verdict = _judge(result, others, priced)
            if verdict is None:
                continue
            said = answer[result.start : result.end]
            out.append(
                Finding(
                    result.start,
                    result.end,
                    result.kind,
                    "conflict",
                    None,
                    f"{result.kind} does not add up: the answer's own figures give {verdict}, "
                    f"not {said}",
                )
            )
    return out


def _shift(v: Value, by: int) -> Value:
    return Value(v.start + by, v.end + by, v.kind, v.canon, v.unit)


def _counted(v: Value, answer: str) -> Value:
    """A number written as a word ("the other three — $40, $60 …") is a count, whatever
    unit the parser lent it from its neighbours."""
    if v.kind == "quantity" and not any(ch.isdigit() for ch in answer[v.start : v.end]):
        return Value(v.start, v.end, v.kind, v.canon, None)
    return v


def _judge(result: Value, others: list[Value], priced: frozenset[int] = frozenset()) -> str | None:
    """What the nearest step gives, when no step gives `result` and one comes close."""
    if result.kind == "time":
        minute = _minutes_of_day(result)
        clock_steps = list(_time_steps(others))
        if not clock_steps or any(_same_clock(s, minute) for s in clock_steps):
            return None
        near_clock = [s for s in clock_steps if _clock_gap(s, minute) <= NEAR_MINUTES]
        return _clock(near_clock[0]) if near_clock else None
    if result.kind == "date":
        date_steps = list(_date_steps(others))
        if not date_steps:
            return None
        day = _as_date(result, date_steps[0].year)
        if day is None or any(abs((s - day).days) <= 1 for s in date_steps):
            return None
        near_days = [s for s in date_steps if abs((s - day).days) <= NEAR_DAYS]
        return f"{near_days[0].day} {near_days[0]:%B}" if near_days else None
    if result.kind != "quantity":
        return None
    number = float(result.canon[0])
    if result.unit in _TIME_UNITS:
        candidates = [(c, True) for c in _duration_steps(others)]
        number = result.base()
    else:
        candidates = list(_amount_steps(result, others, priced))
    if not candidates or number == 0:
        return None
    if any(rounded_equal(c, number) or _close_enough(c, number) for c, _ in candidates):
        return None

    def close(c: float) -> bool:
        gap = abs(c - number)
        if result.unit in _TIME_UNITS:  # seconds: "1 h 35 min" for 1 h 20 min is close
            return gap <= 60 * NEAR_MINUTES and gap / max(abs(c), abs(number)) <= 2 * NEAR
        return gap / max(abs(c), abs(number)) <= NEAR

    near = [c for c, flags in candidates if flags and close(c)]
    if not near:
        return None
    best = near[0]  # the first step tried: a sum of every amount before a product
    if result.unit in _TIME_UNITS:
        minutes = round(best / 60)
        return f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"
    return f"{best:,.2f}".rstrip("0").rstrip(".")


def _close_enough(step: float, said: float) -> bool:
    """A result rounded as people round ("roughly 540 kg" for 541.3, "$1,403" for 1,402.92)."""
    return abs(step - said) <= max(0.5, 0.01 * abs(step))


def _amount_steps(
    result: Value, others: list[Value], priced: frozenset[int] = frozenset()
) -> Iterator[tuple[float, bool]]:
    """(step, whether a near miss of it flags the result). Steps that read the sentence
    one way among several (a count before an amount may count it or may have made it:
    "two adults come to $24") only confirm a result; they never flag one."""
    unit = result.unit
    amounts = [v for v in others if v.kind == "quantity" and v.unit == unit]
    same = [float(v.canon[0]) for v in amounts]
    # a count, or a number of days, hours ... that a rate per day or hour multiplies
    counts = [
        float(v.canon[0])
        for v in others
        if v.kind == "quantity"
        and v.unit != unit
        and (v.unit is None or v.unit in _TIME_UNITS)
        and float(v.canon[0]) > 0
    ]
    if len(same) >= 2:
        yield sum(same), True
    for a, b in combinations(same, 2):
        yield a + b, True
        yield abs(a - b), True
    for a in same:
        for n in counts:
            # "nine days at £42 a day": one amount, one count
            yield a * n, len(same) == 1
            yield a / n, len(same) == 1
    if unit == "%":
        plain = [float(v.canon[0]) for v in others if v.kind == "quantity" and v.unit is None]
        for a, b in permutations(plain, 2):
            if 0 < a < b:
                yield 100 * a / b, True
        for a, b in combinations(same, 2):
            yield abs(a - b), True
    if unit is None:
        plain = [float(v.canon[0]) for v in others if v.kind == "quantity" and v.unit is None]
        for a, b in combinations(plain, 2):
            yield a + b, True
            yield abs(a - b), True
    # confirming only
    if len(amounts) >= 2:
        # "two adult tickets at $18 and three child tickets at $11": each amount times
        # the count written between it and the amount before it
        weighted, after, is_priced = 0.0, 0, True
        for v in amounts:
            between = [
                c
                for c in others
                if c.kind == "quantity" and c.unit is None and after <= c.start < v.start
            ]
            n = float(between[-1].canon[0]) if between else 1.0
            if n != 1:
                is_priced = is_priced and v.start in priced
            weighted += float(v.canon[0]) * n
            after = v.end
        # it flags only where each counted amount is a unit price ("at $89.00 each")
        yield weighted, is_priced
    for a in same:
        for n in counts:
            yield sum(same) - a + a * n, False  # one of the amounts taken n times
        for m, n in combinations(counts, 2):
            yield a * m * n, False
    pct = [float(v.canon[0]) for v in others if v.kind == "quantity" and v.unit == "%"]
    for a in same:
        for p in pct:
            yield a * p / 100, False
            yield a * (1 - p / 100), False
            yield a * (1 + p / 100), False


def _duration_steps(others: list[Value]) -> Iterator[float]:
    """Durations in seconds: between two clock times, or a sum or difference of two."""
    times = [_minutes_of_day(v) for v in others if v.kind == "time"]
    for t1, t2 in combinations(times, 2):
        yield 60.0 * ((t2 - t1) % (24 * 60))
        yield 60.0 * ((t1 - t2) % (24 * 60))
    spans = [v.base() for v in others if v.kind == "quantity" and v.unit in _TIME_UNITS]
    for a, b in combinations(spans, 2):
        yield a + b
        yield abs(a - b)


def _time_steps(others: list[Value]) -> Iterator[int]:
    """Minutes of the day: a clock time plus or minus a duration of the sentence."""
    times = [_minutes_of_day(v) for v in others if v.kind == "time"]
    spans = [
        round(v.base() / 60)
        for v in others
        if v.kind == "quantity" and v.unit in ("s", "min", "h") and v.base() < 24 * 3600
    ]
    for t in times:
        for d in spans:
            yield (t + d) % (24 * 60)
            yield (t - d) % (24 * 60)


def _date_steps(others: list[Value]) -> Iterator[dt.date]:
    dates = [d for v in others if v.kind == "date" and (d := _as_date(v, None)) is not None]
    spans = [v for v in others if v.kind == "quantity" and v.unit in ("d", "wk", "mo", "yr")]
    for d in dates:
        for s in spans:
            n = int(float(s.canon[0]))
            if float(s.canon[0]) != n:
                continue
            for sign in (1, -1):
                if s.unit == "d":
                    yield d + dt.timedelta(days=sign * n)
                elif s.unit == "wk":
                    yield d + dt.timedelta(weeks=sign * n)
                else:
                    months = sign * n * (12 if s.unit == "yr" else 1)
                    yield _add_months(d, months)


def _add_months(d: dt.date, months: int) -> dt.date:
    y, m = divmod(d.month - 1 + months, 12)
    for day in (d.day, 30, 29, 28):
        try:
            return dt.date(d.year + y, m + 1, day)
        except ValueError:
            continue
    return d


def _as_date(v: Value, year: int | None) -> dt.date | None:
    month, day, stated = v.canon
    try:
        return dt.date(int(stated or year or 2025), int(month), int(day))
    except (TypeError, ValueError):
        return None


def _minutes_of_day(v: Value) -> int:
    return (int(v.canon[0]) * 60 + int(v.canon[1])) % (24 * 60)


def _same_clock(a: int, b: int) -> bool:
    """Equal, or equal on a 12-hour clock ("1:30" may be 13:30)."""
    return a == b or abs(a - b) == 12 * 60


def _clock_gap(a: int, b: int) -> int:
    gap = abs(a - b) % (24 * 60)
    return min(gap, 24 * 60 - gap, abs(gap - 12 * 60))


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"
