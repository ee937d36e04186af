"""Typed values in text, normalised so that equal values compare equal however written.

    "9:05" = "09:05" = "9:05 am";  "9 pm" = "21:00"
    "March 4" = "4 March" = "Mar 4" = "2025-03-04" (the year counts only when both give one)
    "1,000" = "1000" = "1k" = "one thousand";  "$1,200" = "1200 USD" = "$1.2k"
    "2.5%" = "2.5 percent" = "2.5 per cent";  "30 days" = "30-day";  "330 m" = "330 metres"

`values(text)` returns every value with its character span, its kind
(`time`, `date`, `year`, `quantity`) and a canonical form. A quantity keeps
its unit when one is written next to it (a currency sign, %, a unit word or
abbreviation); in key: value data the key often carries the unit instead
(`"duration_min": 95`), so a quantity also records the unit its key names.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Literal

from ..text.memo import memoise_text
from ..text.words import MONTHS as WORD_MONTHS
from ..text.words import NUMBER_WORDS as WORD_NUMBERS

ValueKind = Literal["time", "date", "year", "quantity"]

#: Month number by name or abbreviation (the words module's table, as integers).
MONTHS = {name: int(code[1:]) for name, code in WORD_MONTHS.items()}

UNITS = {
    "km": "km", "kms": "km", "kilometer": "km", "kilometre": "km", "kilometers": "km",
    "kilometres": "km", "mi": "mi", "mile": "mi", "miles": "mi", "m": "m", "meter": "m",
    "metre": "m", "meters": "m", "metres": "m", "cm": "cm", "mm": "mm", "ft": "ft",
    "feet": "ft", "foot": "ft", "inch": "in", "inches": "in",
    "kg": "kg", "kgs": "kg", "kilogram": "kg", "kilograms": "kg", "kilo": "kg", "kilos": "kg",
    "g": "g", "gram": "g", "grams": "g", "lb": "lb", "lbs": "lb", "pound": "pound",
    "pounds": "pound", "t": "t", "ton": "t", "tons": "t", "tonne": "t", "tonnes": "t",
    "l": "l", "liter": "l", "litre": "l", "liters": "l", "litres": "l", "ml": "ml",
    "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
    "min": "min", "mins": "min", "minute": "min", "minutes": "min",
    "h": "h", "hr": "h", "hrs": "h", "hour": "h", "hours": "h",
    "day": "d", "days": "d", "week": "wk", "weeks": "wk", "month": "mo", "months": "mo",
    "year": "y", "years": "y", "yr": "y", "yrs": "y",
    "%": "%", "percent": "%", "pct": "%", "per cent": "%",
    "°c": "c", "c": "c", "celsius": "c", "degrees celsius": "c", "°f": "f", "fahrenheit": "f",
    "degrees": "deg", "degree": "deg",
    "km/h": "kmh", "kmh": "kmh", "kph": "kmh", "mph": "mph",
    "gb": "gb", "mb": "mb", "tb": "tb", "kb": "kb", "ghz": "ghz", "mhz": "mhz",
    "usd": "usd", "dollars": "usd", "dollar": "usd", "eur": "eur", "euros": "eur",
    "euro": "eur", "gbp": "gbp", "€": "eur", "$": "usd", "£": "gbp",
}  # fmt: skip
SCALES = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "bn": 1e9,
          "billion": 1e9, "trillion": 1e12}  # fmt: skip
#: Spelled-out cardinals from the words module's table, less the ones that are far more
#: often a pronoun or vague ("one", "zero", "hundred"), the scale words (read as scales
#: after a digit) and the ordinals.
NUMBER_WORDS = {
    word: float(value)
    for word, value in WORD_NUMBERS.items()
    if word not in {"zero", "one", "hundred", "thousand", "million", "billion", "dozen"}
    and not word.endswith(("st", "rd", "th"))
}
#: Key fragments that name a unit in key: value data ("duration_min", "price_usd").
KEY_UNITS = {"min": "min", "minutes": "min", "mins": "min", "km": "km", "kg": "kg", "m": "m",
             "usd": "usd", "eur": "eur", "gbp": "gbp", "pct": "%", "percent": "%", "c": "c", "f": "f",
             "kmh": "kmh", "mph": "mph", "h": "h", "hours": "h", "days": "d", "years": "y",
             "gb": "gb", "mb": "mb", "price": "money", "cost": "money", "total": "money",
             "balance": "money", "amount": "money", "fee": "money",
             "probability": "fraction", "prob": "fraction", "share": "fraction",
             "ratio": "fraction"}  # fmt: skip
#: Units that stand for several: "pounds" (weight or sterling), and the "money" a key
#: such as "balance" names without saying which currency.
#: Currency units, and the "money" a key such as "balance" names.
MONEY = frozenset({"usd", "eur", "gbp", "pound", "money"})
COMPATIBLE = {"pound": {"lb", "gbp"}, "money": MONEY - {"money"}, "fraction": {"%"}}


#: Units of one dimension, with their size in its base unit: "two weeks" is "14 days",
#: "1.5 km" is "1500 m". Months and years are left out (their length in days varies).
SIZES = {
    "s": ("time", 1.0), "min": ("time", 60.0), "h": ("time", 3600.0),
    "d": ("time", 86400.0), "wk": ("time", 604800.0),
    "km": ("length", 1000.0), "m": ("length", 1.0), "cm": ("length", 0.01),
    "mm": ("length", 0.001), "kg": ("mass", 1000.0), "g": ("mass", 1.0),
    "l": ("volume", 1000.0), "ml": ("volume", 1.0),
}  # fmt: skip


#: The `unit` of a time written without am/pm whose hour could be either ("1:30").
CLOCK_12H = "12h"


def compatible(a: str | None, b: str | None) -> bool:
    """Whether two units may name the same thing (an unknown unit may be any), including
    two sizes of one dimension (days and weeks)."""
    if a is None or b is None or a == b:
        return True
    if a in SIZES and b in SIZES:
        return SIZES[a][0] == SIZES[b][0]
    return b in COMPATIBLE.get(a, ()) or a in COMPATIBLE.get(b, ())


#: What a unit measures, for telling a renamed unit ("5 miles" for "5 km", "£10" for "$10")
#: from another quantity that shares a number ("ten years" beside "£10").
DIMENSIONS = {
    **{unit: "time" for unit in ("s", "min", "h", "d", "wk", "mo", "y")},
    **{unit: "length" for unit in ("km", "m", "cm", "mm", "mi", "ft", "in")},
    **{unit: "mass" for unit in ("kg", "g", "lb", "t")},
    **{unit: "volume" for unit in ("l", "ml")},
    **{unit: "money" for unit in MONEY},
    **{unit: "temperature" for unit in ("c", "f")},
    **{unit: "speed" for unit in ("kmh", "mph")},
    **{unit: "data" for unit in ("kb", "mb", "gb", "tb")},
    **{unit: "frequency" for unit in ("ghz", "mhz")},
}


def same_dimension(a: str, b: str) -> bool:
    """Whether two units measure the same thing ("pounds" may be mass or money)."""
    if "pound" in (a, b):
        return bool({DIMENSIONS.get(a), DIMENSIONS.get(b)} & {"mass", "money"})
    return DIMENSIONS.get(a) is not None and DIMENSIONS.get(a) == DIMENSIONS.get(b)


_MONTH_RE = "|".join(sorted(MONTHS, key=len, reverse=True))
_TIME = re.compile(
    r"(?<![\d:.])(?P<h>[01]?\d|2[0-3])(?::(?P<m>[0-5]\d))?\s*"
    r"(?P<ampm>[ap]\.?\s?m\.?(?![a-z]))"
    r"|(?<![\d:.])(?P<h2>[01]?\d|2[0-3]):(?P<m2>[0-5]\d)(?::[0-5]\d(?:\.\d+)?)?(?![\d:])",
    re.I,
)
#: A clock-style duration ("finished in 1:05:30" is 1 h 5 min 30 s; "a runtime of 2:14:07"):
#: three fields after a word that names a span of time, or an hour field past 23.
_CLOCK_DURATION = re.compile(
    r"(?<![\d:.])(?P<h>\d{1,3}):(?P<m>[0-5]\d):(?P<s>[0-5]\d)(?:\.\d+)?(?![\d:])"
)
_DURATION_CUE = re.compile(
    r"\b(?:in|time|times|timed|duration|took|takes|lasted|lasts|runtime|run\s+time|length|"
    r"finish(?:ed|ing)?|pace|record|clocked|elapsed|of|total|chip|gun|split|net)"
    r"(?:\W+(?:was|is|of|at|in|a|just))?\W*$",
    re.I,
)
_ISO_DATE = re.compile(r"(?<!\d)(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})(?!\d)")
#: The time-zone offset of an ISO date-time ("2024-06-03T10:35:00+02:00"): not a time.
_ISO_OFFSET = re.compile(r"(?<=\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.\d+)?[+-]\d{2}:?\d{2}")
_DATE_MD = re.compile(
    rf"\b(?P<mon>{_MONTH_RE})\.?[^\S\n]+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?[^\S\n]+(?P<y>\d{{4}})\b)?",
    re.I,
)
_DATE_DM = re.compile(
    rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?[^\S\n]+(?:of[^\S\n]+)?(?P<mon>{_MONTH_RE})\b\.?(?:,?[^\S\n]+(?P<y>\d{{4}})\b)?",
    re.I,
)
_UNIT_RE = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True) if u not in "$€£")
_QUANTITY = re.compile(
    r"(?P<cur>[$€£])?\s?(?P<num>(?<![\w.])(?!(?<=\d,)\d{3}(?!\d))(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?))"
    rf"(?:\s?(?P<scale>k|thousand|million|billion|trillion|bn|mn)\b|(?P<bscale>b)\b)?"
    rf"(?:[\s-]?(?P<unit>{_UNIT_RE})(?![a-zA-Z]))?",
    re.I,
)
#: The first end of a money range, just before a second number ("$1.62–" of "$1.62–1.65B").
_MONEY_RANGE_START = re.compile(r"[$€£]\s?[\d.,]+\s*(?:-|–|—|to)\s*$")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_UNITS_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
#: "forty-five" is 45, one value (not "forty" and "five").
_SPELLED = re.compile(
    r"\b(?:(?P<tens>"
    + "|".join(_TENS)
    + r")[\s-](?P<ones>"
    + "|".join(_UNITS_WORDS)
    + r")|("
    + "|".join(NUMBER_WORDS)
    + r"))\b",
    re.I,
)
_ONES = {w: float(i + 1) for i, w in enumerate(_UNITS_WORDS)}
_KEY_BEFORE = re.compile(r"[\"']?(?P<key>[A-Za-z][\w ]{0,40}?)[\"']?\s*[:=]\s*[\"']?-?$")


@dataclass(frozen=True)
class Value:
    """A typed value at `text[start:end]`; `canon` compares equal for equal values."""

    start: int
    end: int
    kind: ValueKind
    canon: tuple[Any, ...]
    unit: str | None = None  # quantities: the written unit, or the unit the key names

    def same(self, other: Value) -> bool:
        """Whether `other` (an answer's value) says this (a context's) value, rounded or not."""
        if {self.kind, other.kind} == {"year", "quantity"}:  # "1000" may be either
            # ("contingency": 1300 in a budget is read as a year; "€1,300" is the same)
            return float(self.canon[0]) == float(other.canon[0])
        if self.kind != other.kind:
            return False
        if self.kind == "date":  # the year counts only when both state one
            (m1, d1, y1), (m2, d2, y2) = self.canon, other.canon
            return (m1, d1) == (m2, d2) and (y1 is None or y2 is None or y1 == y2)
        if self.kind == "quantity":
            sized = self.unit in SIZES and other.unit in SIZES
            fraction = "fraction" in (self.unit, other.unit) and "%" in (self.unit, other.unit)
            scaled = sized or fraction
            a, b = (self.base(), other.base()) if scaled else (self.canon[0], other.canon[0])
            return rounded_equal(a, b) and compatible(self.unit, other.unit)
        if self.kind == "time" and CLOCK_12H in (self.unit, other.unit):
            return (self.canon[0] % 12, self.canon[1]) == (other.canon[0] % 12, other.canon[1])
        return self.canon == other.canon

    def base(self) -> float:
        """A quantity in its dimension's base unit ("2 wk" -> 1209600 s; a fraction
        named by its key, "precip_probability": 0.1, in percent); the number as written
        when its unit has no size."""
        number = float(self.canon[0])
        if self.unit == "fraction":  # 0.1 is 10 %; a "precip_prob" of 10 already is
            return number * 100 if abs(number) <= 1 else number
        return number * SIZES[self.unit][1] if self.unit in SIZES else number


#: Two numbers this close are one number rounded ("about 2.3 %" for 2.29, "$5.5 million"
#: for 5,523,000); a changed value differs by far more.
ROUNDING = 0.025


def exactly_equal(a: float, b: float) -> bool:
    """Equal up to float noise."""
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)


def rounded_equal(stated: float, said: float) -> bool:
    """Equal, or `said` is `stated` rounded to `said`'s own precision (within `ROUNDING`):
    "2.3" for 2.29, but not "2.29" for 2.3 (precision the context does not give)."""
    if exactly_equal(stated, said):
        return True
    if said == int(said) and stated == int(stated) and max(abs(said), abs(stated)) < 1000:
        return False  # small whole numbers are never rounded versions of each other
    digits = f"{abs(said):.6f}".rstrip("0").rstrip(".")
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    if decimals == 0 and said != 0:  # 600000 from "600k": precise to its last non-zero digit
        step = 10.0 ** (len(digits) - len(digits.rstrip("0")))
    else:
        step = 10.0**-decimals
    gap = abs(said - stated)
    return gap <= step / 2 + 1e-9 and gap <= ROUNDING * max(abs(said), abs(stated))


def _overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(s < end and start < e for s, e in spans)


def _key_unit(text: str, start: int) -> str | None:
    """The unit named by the key in front of a value ("duration_min": 95 -> min)."""
    line_start = text.rfind("\n", 0, start) + 1
    head = text[max(line_start, start - 60) : start]
    head = head[head.rfind(",") + 1 :] if "{" in head or "," in head else head
    m = _KEY_BEFORE.search(head)
    if not m:
        return None
    parts = re.split(r"[_\s-]+", m.group("key").lower())
    for part in reversed(parts):
        if part in KEY_UNITS:
            return KEY_UNITS[part]
    return None


@memoise_text(max_chars=10_000, size=2_048)  # the same passages, checked many times
def values(text: str) -> list[Value]:
    """Every typed value in `text`, left to right, none overlapping another."""
    out: list[Value] = []
    taken: list[tuple[int, int]] = []

    def add(v: Value) -> None:
        if not _overlaps(taken, v.start, v.end):
            out.append(v)
            taken.append((v.start, v.end))

    for m in _ISO_DATE.finditer(text):
        y, mo, d = int(m["y"]), int(m["mo"]), int(m["d"])
        if 1 <= mo <= 12 and 1 <= d <= 31:
            add(Value(m.start(), m.end(), "date", (mo, d, y)))
    for pattern in (_DATE_MD, _DATE_DM):
        for m in pattern.finditer(text):
            d = int(m["d"])
            if 1 <= d <= 31:
                year = int(m["y"]) if m["y"] else None
                add(Value(m.start(), m.end(), "date", (MONTHS[m["mon"].lower()], d, year)))
    for m in _ISO_OFFSET.finditer(text):
        taken.append((m.start(), m.end()))
    for m in _CLOCK_DURATION.finditer(text):
        hours = int(m["h"])
        if hours > 23 or _DURATION_CUE.search(text[max(0, m.start() - 25) : m.start()]):
            seconds = hours * 3600 + int(m["m"]) * 60 + int(m["s"])
            add(Value(m.start(), m.end(), "quantity", (float(seconds),), "s"))
    for m in _TIME.finditer(text):
        marker = None
        if m["h2"] is not None:
            h, mi = int(m["h2"]), int(m["m2"])
            # "1:30" with no am/pm may be 13:30 ("from 1:30 to 3 pm")
            marker = CLOCK_12H if 1 <= h <= 12 and not m["h2"].startswith("0") else None
        else:
            h, mi = int(m["h"]), int(m["m"] or 0)
            if h > 12:
                continue
            pm = m["ampm"].lower().startswith("p")
            h = (h % 12) + (12 if pm else 0)
        end = m.end() - 1 if m.group().endswith(".") else m.end()  # a full stop, not "a.m."
        add(Value(m.start(), end, "time", (h, mi), marker))
    for m in _QUANTITY.finditer(text):
        num = float(m["num"].replace(",", ""))
        scale, unit_word = (m["scale"] or "").lower(), (m["unit"] or "").lower()
        end = m.end()
        if m["bscale"]:  # "$1.65B" or "$1.62–1.65B": billions; "room 5b" is a label
            money = m["cur"] or _MONEY_RANGE_START.search(text[: m.start("num")])
            scale, end = ("bn", end) if money else ("", m.start("bscale"))
        # "m" after a number is metres, unless a currency sign makes it millions.
        if unit_word == "m" and m["cur"]:
            scale, unit_word = "m", ""
        num *= SCALES.get(scale, 1.0)
        unit = UNITS.get(m["cur"]) if m["cur"] else UNITS.get(unit_word)
        if m["cur"] and unit_word in UNITS:
            unit = UNITS[unit_word] if UNITS[unit_word] in ("usd", "eur", "gbp") else unit
        start = m.start("cur") if m["cur"] else m.start("num")
        if unit is None:
            unit = _key_unit(text, start)
        is_year = unit is None and not scale and re.fullmatch(r"1\d{3}|20\d{2}", m["num"])
        if is_year:
            add(Value(start, end, "year", (int(num),)))
        else:
            add(Value(start, end, "quantity", (round(num, 6),), unit))
    for m in _SPELLED.finditer(text):
        if m["tens"]:
            number = float(NUMBER_WORDS[m["tens"].lower()]) + _ONES[m["ones"].lower()]
        else:
            number = float(NUMBER_WORDS[m.group(3).lower()])
        tail = re.match(r"[\s-]?(" + _UNIT_RE + r")\b", text[m.end() :], re.I)
        unit = UNITS.get(tail.group(1).lower()) if tail else None
        end = m.end() + (tail.end() if tail else 0)
        add(Value(m.start(), end, "quantity", (number,), unit))
    return _ranges(text, _compound_durations(text, sorted(out, key=lambda v: v.start)))


_RANGE_JOIN = re.compile(r"\s*(?:-|–|—|to)\s*", re.I)
_SCALE_WORD = re.compile(r"\d(?:\s?(k|thousand|million|billion|trillion|bn|mn)|(b))\b", re.I)


def _ranges(text: str, found: list[Value]) -> list[Value]:
    """A range written once with its unit and scale ("€3.1–3.4 million", "5 to 7 kg")
    gives both ends that unit and scale: €3.1 million and €3.4 million."""
    out = list(found)
    for k in range(len(out) - 1):
        low, high = out[k], out[k + 1]
        if low.kind != "quantity" or high.kind != "quantity":
            continue
        if low.unit is not None and high.unit is not None and low.unit != high.unit:
            continue  # "rose 12% to $4.2 billion": two values, not a range
        if low.unit is not None and low.unit not in MONEY and high.unit is None:
            continue  # "rose 12% to 6.7 million": a unit written after the first number is its own
        join = text[low.end : high.start]
        between = re.search(r"\bbetween\s+[$€£]?$", text[max(0, low.start - 10) : low.start], re.I)
        if not (_RANGE_JOIN.fullmatch(join) or (between and re.fullmatch(r"\s+and\s+", join))):
            continue
        low_text, high_text = text[low.start : low.end], text[high.start : high.end]
        number = float(low.canon[0])
        scale = _SCALE_WORD.search(high_text)
        if scale and not _SCALE_WORD.search(low_text):
            number *= SCALES[(scale.group(1) or "bn").lower()]
        unit = low.unit or high.unit
        out[k] = Value(low.start, low.end, "quantity", (round(number, 6),), unit)
        if high.unit is None and unit is not None:
            out[k + 1] = Value(high.start, high.end, "quantity", high.canon, unit)
    return out


_JOINS_DURATION = re.compile(r"\s*(?:,|and)?\s*")


def _compound_durations(text: str, found: list[Value]) -> list[Value]:
    """ "6 hours 52 minutes" is one duration of 412 minutes, not two values."""
    out: list[Value] = []
    for v in found:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.kind == v.kind == "quantity"
            and (prev.unit, v.unit) in (("h", "min"), ("min", "s"), ("d", "h"))
            and _JOINS_DURATION.fullmatch(text[prev.end : v.start])
        ):
            total = prev.base() + v.base()
            unit = v.unit or "min"
            out[-1] = Value(
                prev.start, v.end, "quantity", (round(total / SIZES[unit][1], 6),), unit
            )
            continue
        out.append(v)
    return out
