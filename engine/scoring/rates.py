"""Amounts stated per unit: a rate is not the total it is multiplied into.

"£120 per night", "$0.03 per bushel", "£25 a month per pet", `"deposit_per_person_gbp": 15`:
an answer's "£480 in hotel costs" is worked out from such a rate, or wrong, but the rate
does not contradict it, because the two are different quantities. The value checks
(`typed_checks`) compare a rate only with a rate, and a total only with a total.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .typed_values import MONEY, Value

#: Units of time: an amount per month or per year is a periodic amount, compared with
#: other amounts as before (`worked_out` derives a year from a month); only an amount per
#: thing (night, bushel, seat, person, kWh, item) is a rate here.
_PERIODS = frozenset(
    [
        "second",
        "seconds",
        "minute",
        "minutes",
        "min",
        "hour",
        "hours",
        "hr",
        "day",
        "days",
        "week",
        "weeks",
        "fortnight",
        "month",
        "months",
        "year",
        "years",
        "annum",
        "quarter",
        "quarters",
        "calendar",
        "cent",
        "percent",
    ]
)
_CHAIN = re.compile(r"\s*(?:\)\s*)?(per|an?|/|each|every|apiece)\b\s*([a-z]+)?", re.IGNORECASE)
#: A table or JSON field that names a rate: `"price_per_unit": 4.35`, `"deposit_per_person_gbp": 15`.
_KEY_BEFORE = re.compile(
    r"(?:(?<![a-z])per[_ ]([a-z]+)\w*|\bunit[_ ]price\w*)[\"']?\s*[:=]\s*[\"']?\S{0,3}$",
    re.IGNORECASE,
)


def per_unit(text: str, start: int, end: int) -> bool:
    """Whether the amount at `text[start:end]` is stated per unit of a thing ("£120 per
    night", "$40 each", "£25 a month per pet"), not per unit of time alone."""
    at = end
    for _ in range(2):  # "per month per pet": the second unit may name the thing
        m = _CHAIN.match(text, at)
        if m is None:
            break
        word, unit = m.group(1).lower(), (m.group(2) or "").lower()
        if word in ("each", "apiece"):
            return True
        if word in ("a", "an") and not unit:
            break
        if unit and unit not in _PERIODS:
            if word in ("a", "an") and unit not in _THINGS:
                break  # "$35 a head" is a rate; "$35 a significant" is prose
            return True
        at = m.end()
    key = _KEY_BEFORE.search(text[max(0, start - 40) : start])
    return key is not None and (key.group(1) or "").lower() not in _PERIODS


#: Words that after "a"/"an" name a thing an amount is charged per.
_THINGS = frozenset(
    [
        "night",
        "head",
        "person",
        "unit",
        "piece",
        "seat",
        "user",
        "kilo",
        "kg",
        "litre",
        "liter",
        "mile",
        "km",
        "kwh",
        "page",
        "item",
        "adult",
        "child",
        "ticket",
        "guest",
        "room",
        "bag",
        "pet",
        "share",
        "tonne",
        "ton",
        "bushel",
        "visit",
        "session",
        "lesson",
        "class",
    ]
)


def products(
    target: float, rates: Sequence[tuple[int, str, Value]], counts: Sequence[float]
) -> bool:
    """Whether `target` is a stated rate times a count, to the cent or within half a per
    cent (412.6 kWh at £0.245 a kWh is £101.09; three months at £5 a month is £15)."""
    for c in rates:
        rate = c[2].base()
        for n in counts:
            product = rate * n
            if product and abs(target - product) <= max(0.005 * abs(product), 0.005):
                return True
    return False


def counts_of(found: Sequence[Value]) -> list[float]:
    """Plain counts among `found` (the question's and the answer sentence's values): a
    number of things, months or nights, never an amount of money or a percentage."""
    return list(
        dict.fromkeys(
            float(v.canon[0])
            for v in found
            if v.kind == "quantity" and 1 < v.canon[0] <= 1000 and v.unit not in (*MONEY, "%")
        )
    )


#: How far a total may stray from the rate times the count its own sentence states and
#: still read as that product worked out wrongly ("$20 per person, or $90 for four").
NEAR = 0.35


def missed_product(target: float, rates: Sequence[Value], counts: Sequence[float]) -> float | None:
    """The product of a rate the answer's sentence restates and a count of that sentence
    that `target` misses by no more than `NEAR`: the sentence's own arithmetic, gone wrong."""
    for rate in rates:
        for n in counts:
            product = rate.base() * n
            miss = abs(target - product)
            if product and max(0.005 * abs(product), 0.005) < miss <= NEAR * abs(product):
                return product
    return None
