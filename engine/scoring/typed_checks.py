"""Typed checks: a second signal beside the model, in both directions.

For each typed value of the answer (`typed_values`: times, dates, years,
quantities with units, money, percentages) the context is searched for
the same value however it is written:

* `match`: the context states it (09:05 for 9:05, 2025-03-04 for March 4,
  6200 under "distance_km" for 6,200 km). Its tokens are capped low, so a
  value stated differently but equal never becomes a flagged span.
* `conflict`: the context states a different value of the same kind and
  unit (330 m against 500 m, 1887/1889 against 1950), or the same number
  in another unit. Its tokens are raised to a contradiction.
* `absent`: nothing comparable in the context; its tokens are raised to at
  least `ABSENT_FLOOR` (unsupported, not contradicted).

Two sentence-level checks join them. A negation flip: an answer sentence
whose closest context sentence says nearly the same words with the other
polarity ("can be returned" against "cannot be returned"). An antonym: the
answer uses the opposite of the context's word in an otherwise matching
sentence (increased/decreased, before/after, open/closed), or another member of
a closed word class (`word_classes`: "green" where the context says "orange",
"half pay" against "full pay"); in a short context the specific classes
(colours, weather, weekdays, frequencies) are compared anywhere. And a number
read from another row of a table (`records`: "Bergen ... founded in 1040" when
1040 is Oslo's row) is a contradiction with the right cell as evidence, and so is a
name from the context in another entity's role (`roles`: "Marco approved" where the
context's Priya approved what Marco requested), and a predicate the answer states with
the polarity the aligned context clause denies (`polarity`: "are paid out" against
"cannot be carried over or paid out", though the answer negates another verb).

`adjust(tokens, findings)` applies the findings to any detector's token
probabilities; the default detector does so before its response head reads
them, so the answer's score moves with them.
"""

from __future__ import annotations

import datetime
import itertools
import re
from collections.abc import Callable, Sequence
from typing import Any

from ..text.sentences import clause_spans, sentence_at, split_sentences, states_something
from ..text.words import content_keys, stem
from ..types import TokenProb
from .booleans import boolean_findings
from .fields import field_findings
from .findings import Finding
from .name_swaps import name_swap_findings
from .near_numbers import near_number_findings
from .polarity import polarity_findings
from .records import record_findings
from .roles import role_findings
from .typed_values import (
    MONEY,
    Value,
    compatible,
    exactly_equal,
    rounded_equal,
    same_dimension,
    values,
)
from .word_classes import is_loose, members, word_class

#: A matched value's tokens end at most here: below any sensible token threshold.
MATCH_CAP = 0.05
#: A contradicted value is as sure as the model's most confident spans.
CONFLICT_FLOOR = 0.95
#: An unsupported value: flagged at the default threshold, below a contradiction.
ABSENT_FLOOR = 0.7
#: The reason of a `match` that the answer worked out from the context's values.
WORKED_OUT_REASON = "worked out from the context's values"
#: The least score of an answer stating a clock time that the context neither states nor
#: lets one work out (a stated time plus a duration beside it): above the threshold and its
#: uncertainty band. On the customer-style development sets such a time was the answer's
#: own on 5 wrong answers and no faithful one.
ABSENT_TIME_FLOOR = 0.65
#: How much of an answer sentence's content must recur in a context sentence before a
#: polarity or antonym difference between them counts as a flip, not another statement.
SENTENCE_OVERLAP = 0.6
#: A long context (several documents) states many values and sentences about other
#: things: there a different value counts as a conflict only when its surroundings share
#: `LONG_SLOT_WORDS` content words with the answer value's, and a clause must match
#: `LONG_SENTENCE_OVERLAP` of its words, before a difference is read as a contradiction.
LONG_CONTEXT_CHARS = 1000
LONG_SLOT_WORDS = 2
LONG_SENTENCE_OVERLAP = 0.8

#: How far before and after a value a calculation word ("so the total is", "or £220
#: altogether") marks it as worked out. After-the-value cues were added with the fifteen
#: development sets: 7 faithful answers fewer with a false contradiction, 3 wrong ones fewer
#: with a right one (docs/benchmarks.md "Customer-style cases").
WORKED_OUT_BEFORE = 45
WORKED_OUT_AFTER = 45

NEGATION = re.compile(
    r"\b(?:not|no|never|none|nothing|nobody|cannot|without)\b|n['’]t\b", re.IGNORECASE
)
#: Words that state a negative without a negation word: "Brushes are excluded" says
#: what "does not cover brushes" says, so neither side of such a pair is a flip.
NEGATIVE_WORDS = re.compile(
    r"\b(?:exclud\w*|prohibit\w*|forbid\w*|bann(?:ed|ing)|void|invalid|unable|"
    r"refus\w*|denied|den(?:y|ies)|lack\w*|fail\w*|neither|nor|non-?refundable|"
    r"unavailable|ineligible|unsuitable|except|barred|disallow\w*|"
    r"rather\s+than|instead\s+of|other\s+than|free\s+(?:of|from))\b",
    re.IGNORECASE,
)


def _negated(words: str) -> re.Pattern[str]:
    """A negation followed within four words by one of `words`."""
    return re.compile(
        r"(?:\b(?:not|no|never|cannot)\b|n['’]t\b)(?:\W+\w+){0,4}?\W+(?:" + words + r")\b",
        re.IGNORECASE,
    )


#: A negated excess is an upper bound and a negated shortfall a lower one: "do not use
#: for more than 10 days" says "up to ten days", "no component below 6.0" says "each at
#: least 6.0". Pairs of (negated form, bound).
_BOUNDS = (
    (
        _negated(r"more\s+than|exceed\w*|longer\s+than|over|beyond|above|in\s+excess\s+of"),
        re.compile(
            r"\b(?:up\s+to|at\s+most|no\s+more\s+than|not\s+more\s+than|a\s+maximum\s+of|"
            r"maximum|max|within|or\s+(?:less|fewer)|limit(?:ed)?\s+(?:to|of))\b",
            re.IGNORECASE,
        ),
    ),
    (
        _negated(r"less\s+than|fewer\s+than|below|under|lower\s+than|short\s+of"),
        re.compile(
            r"\b(?:at\s+least|a\s+minimum\s+of|minimum|min|or\s+(?:more|above|higher|over)|"
            r"no\s+less\s+than|not\s+less\s+than)\b",
            re.IGNORECASE,
        ),
    ),
)
#: Negation words inside fixed phrases that negate nothing: "no later than 30 days"
#: is "within 30 days"; ", not by us" after a clause rules out another party, it does
#: not deny the clause.
_IDIOM = re.compile(
    r"\b(?:no|not)\s+(?:later|earlier|sooner|more|less|fewer|longer|shorter)\s+than\b"
    r"|\bnot\s+only\b|\bno\s+matter\b|\bno\s+doubt\b|\bnothing\s+but\b"
    r"|,\s*(?:but\s+)?not\s+(?:by|from|for|to|in|on|at|with|through|via)\b",
    re.IGNORECASE,
)
#: Words between a negation and what it negates ("cannot *be* returned").
_SKIP_AFTER_NEGATION = frozenset(
    {"be", "been", "being", "is", "are", "was", "were", "a", "an", "the", "any", "yet",
     "always", "ever", "currently", "usually", "normally", "to", "have", "has", "get", "got",
     "do", "does", "did", "very", "so", "too", "also", "necessarily"}
)  # fmt: skip
_AUX = re.compile(
    r"\b(?:is|are|was|were|can|could|will|would|has|have|had|does|do|did|should|must|may)\b",
    re.IGNORECASE,
)
ANTONYMS = [
    ("increase", "decrease"), ("increased", "decreased"), ("rise", "fall"), ("rose", "fell"),
    ("before", "after"), ("largest", "smallest"), ("highest", "lowest"), ("higher", "lower"),
    ("more", "less"), ("north", "south"), ("east", "west"), ("won", "lost"), ("win", "lose"),
    ("open", "closed"), ("opened", "closed"), ("allowed", "prohibited"), ("allowed", "forbidden"),
    ("permitted", "prohibited"), ("accepted", "rejected"), ("approved", "rejected"),
    ("included", "excluded"), ("minimum", "maximum"), ("first", "last"), ("early", "late"),
    ("earliest", "latest"), ("above", "below"), ("gain", "loss"), ("profit", "loss"),
    ("available", "unavailable"), ("mandatory", "optional"), ("required", "optional"),
    ("public", "private"), ("cheaper", "more expensive"), ("older", "younger"),
]  # fmt: skip
#: A clause that opens with a condition or a reason states the user's case ("Because
#: you aren't a Plus member, ..."), not a claim about the context.
_CONDITION = re.compile(r"\s*(?:because|since|as|if|unless|when|whenever)\b", re.IGNORECASE)
_PARTICLE = re.compile(r"\s*(?:no|yes)\b\s*[,.!:;\-–—]", re.IGNORECASE)
_OPPOSITE = {a: b for a, b in ANTONYMS} | {b: a for a, b in ANTONYMS}


def _window_keys(text: str, start: int, end: int, width: int = 60) -> set[str]:
    return content_keys(text[max(0, start - width) : end + width])


def _closest(
    answer: str, value: Value, candidates: list[tuple[int, str, Value]]
) -> tuple[int, str, Value]:
    """The candidate whose surroundings share the most words with the value's."""
    mine = _window_keys(answer, value.start, value.end)
    return max(
        candidates,
        key=lambda c: (len(mine & _window_keys(c[1], c[2].start, c[2].end)), -c[2].start),
    )


def _comparable(a: Value, b: Value) -> bool:
    if a.kind != b.kind:
        return False
    if a.kind == "quantity":
        return a.unit is not None and b.unit is not None and compatible(a.unit, b.unit)
    return True


def _with_years(found: list[Value]) -> list[Value]:
    """A full date also states its year ("2025-03-04" supports "in 2025")."""
    years = [
        Value(v.start, v.end, "year", (v.canon[2],))
        for v in found
        if v.kind == "date" and v.canon[2]
    ]
    return found + years


#: Words that mark a figure as approximate ("about $150 in spending altogether").
_APPROXIMATE = re.compile(
    r"\b(?:about|around|roughly|approximately|nearly|almost|some|just\s+(?:over|under))\s*$|~\s*$",
    re.IGNORECASE,
)


def _derived(
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
    nums = [c[2].base() for c in stated if c[0] != -2 and _comparable(value, c[2])][:40]
    nums += [v.base() for v in asked if _comparable(value, v)]
    # one operand per amount: the answer restating a stated $900k is not a second $900k
    nums = list(dict.fromkeys(nums))
    # the answer's own confirmed values (index -2) take part in one step only: a sum or
    # a difference of two; in totals of three they would make most wrong sums hit
    steps = list(
        dict.fromkeys(
            nums + [c[2].base() for c in stated if c[0] == -2 and _comparable(value, c[2])]
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
    periodic = [c[2].base() for c in stated if _comparable(value, c[2]) and _per_period(c)]
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
_WORKED_OUT = re.compile(
    r"\b(?:total\w*|altogether|in\s+all|combined|overall|comes?\s+to|came\s+to|coming\s+to|"
    r"works?\s+out|worked\s+out|adds?\s+up|adding\s+up|sum|which\s+(?:is|means|makes)|"
    r"that(?:'s|’s|\s+is|\s+makes|\s+means)|making|remaining|difference|sav(?:e|es|ing|ings)|"
    r"average|averag\w+)\b|[=×÷]",
    re.IGNORECASE,
)
#: Words that say a percentage is a change or a share ("up 12%", "a 20% saving", "30%
#: of the total"), not a probability or a rate stated on its own.
_CHANGE = re.compile(
    r"\b(?:increas\w*|decreas\w*|ris(?:e|es|ing)|rose|f[ae]ll\w*|up|down|gr[eo]w\w*|drop\w*|"
    r"cut|cheaper|dearer|sav\w*|discount\w*|off|more|less|higher|lower|share|portion|"
    r"proportion|fraction|of\s+(?:the|all|its|their|your)\s+\w+|change\w*|gain\w*|loss\w*)\b",
    re.IGNORECASE,
)
#: A rate per day, week or month stated per week, month or year: "£1,200 a month" is
#: £14,400 a year, "2 doses a day" is 14 a week.
#: A payment made each quarter (not "third-quarter revenue").
_QUARTERLY = re.compile(r"\bquarterly\b|\b(?:per|a|each|every)\s+quarter\b", re.IGNORECASE)
_CALENDAR_FACTORS = (7.0, 12.0, 24.0, 52.0, 365.0)
#: Units that are amounts, not counts of things.
_NOT_COUNTS = frozenset({*MONEY, "%"})
#: A rate stated per period: "£1,200 a month", "$12 per day", "daily limit of 2 g".
_PERIOD_AFTER = re.compile(
    r"^(?:\s+[\w-]+){0,4}?\s*(?:a|an|per|each|every|/)\s*(?:hour|day|night|week|month|year|annum)\b"
    r"|^\s*(?:hourly|daily|nightly|weekly|monthly|yearly|annually|p\.?a\.?)\b"
    r"|^\s*(?:per_|/)?(?:hour|day|night|week|month|year)",
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
            if c[0] == -1 and c[2].end <= value.start and _comparable(value, c[2])
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


def _own_operands(answer: str, value: Value) -> list[Value]:
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


def _date_plus_days(value: Value, stated: list[tuple[int, str, Value]]) -> bool:
    """A date that is a stated date plus or minus a stated number of days or weeks ("net
    30 days" from 1 March is 31 March; shipped 26 February, 5 transit days: 2 March; 14
    days before 1 March is 15 February)."""
    month, day, year = value.canon
    dates = [c[2].canon for c in stated if c[2].kind == "date"][:20]
    spans = [round(c[2].base() / 86400) for c in stated if c[2].kind == "quantity"
             and c[2].unit in ("d", "wk")][:20]  # fmt: skip
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
    """A time that is a stated time plus a stated duration ("2:30 pm, 45 minutes": done
    by 3:15 pm). The duration is stated beside the result (the answer's own sentence) or
    in the same sentence as the time: any time of a timetable plus any duration it names
    ("a 15-minute break") would pass most wrong times."""
    times = [c for c in stated if c[2].kind == "time"]
    durations = [c for c in stated if c[2].kind == "quantity" and c[2].unit in ("min", "h")]
    minutes = value.canon[0] * 60 + value.canon[1]
    return any(
        (t.canon[0] * 60 + t.canon[1] + round(d.base() / 60) - minutes) % (12 * 60) == 0
        and _together((i, passage, t), (j, theirs, d))
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


def _approximate_time(answer: str, value: Value, stated: list[tuple[int, str, Value]]) -> bool:
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


def _asked_hour(value: Value, query: str | None) -> bool:
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


def _is_long(context: Sequence[str]) -> bool:
    return sum(len(p) for p in context) > LONG_CONTEXT_CHARS


def value_findings(context: Sequence[str], answer: str, query: str | None = None) -> list[Finding]:
    """Typed values of the answer against the context. A value the user's own question
    states ("I have a 15 kg dog") is the user's premise: restating it is no claim."""
    stated = [(i, p, v) for i, p in enumerate(context) for v in _with_years(values(p))]
    asked = values(query) if query else []
    long_context = _is_long(context)
    out: list[Finding] = []
    # the answer's values confirmed so far (stated or worked out): a later step of a
    # calculation may use them ("leaving £501 ... £100.20 ... so it pays £400.80")
    confirmed: list[tuple[int, str, Value]] = []
    for value in values(answer):
        found = len(out)
        _judge_value(value, answer, query, stated, asked, confirmed, long_context, out)
        if value.kind == "quantity" and (len(out) == found or out[-1].verdict == "match"):
            confirmed.append((-2, answer, value))
    return out


def _judge_value(
    value: Value,
    answer: str,
    query: str | None,
    stated: list[tuple[int, str, Value]],
    asked: list[Value],
    confirmed: list[tuple[int, str, Value]],
    long_context: bool,
    out: list[Finding],
) -> None:
    """Append the finding for one answer value to `out` (none when it is worked out)."""
    same = [c for c in stated if c[2].same(value)]
    if same:
        i, _, v = same[0]
        out.append(Finding(value.start, value.end, value.kind, "match", (i, v.start, v.end)))
        return
    if any(v.same(value) for v in asked) or _asked_hour(value, query):
        out.append(Finding(value.start, value.end, value.kind, "match"))
        return
    if _approximate_time(answer, value, stated):
        out.append(Finding(value.start, value.end, value.kind, "match"))
        return
    rivals = [c for c in stated if _comparable(value, c[2])]
    renamed = [  # the same number in another unit: "5 miles" against "5 km"
        c for c in stated
        if c[2].kind == "quantity" and value.kind == "quantity" and c[2].canon == value.canon
        and value.unit and c[2].unit and not compatible(c[2].unit, value.unit)
        and same_dimension(c[2].unit, value.unit)
    ]  # fmt: skip
    pool = renamed or rivals
    if pool and long_context:
        mine = _window_keys(answer, value.start, value.end)
        pool = [
            c
            for c in pool
            if len(mine & _window_keys(c[1], c[2].start, c[2].end)) >= LONG_SLOT_WORDS
        ]
    said_about = _APPROXIMATE.search(answer[max(0, value.start - 25) : value.start])
    change = _CHANGE.search(answer[max(0, value.start - 40) : value.end + 40]) is not None
    own = _own_operands(answer, value)
    operands = (
        stated
        + [(-1, answer, v) for v in own if v.kind != "quantity" or v.unit]
        + [c for c in confirmed if c[2].start != value.start]
    )
    premises = [*asked, *(v for v in own if v.kind == "quantity")]
    if pool and _derived(
        value, operands, premises, approximate=said_about is not None, change=change
    ):
        # a difference or sum of stated values: worked out, not contradicted, and as
        # settled as a value the context states (the detector's own doubt is capped)
        out.append(Finding(value.start, value.end, value.kind, "match", None, WORKED_OUT_REASON))
        return
    if pool:
        i, passage, v = _closest(answer, value, pool)
        said = answer[value.start : value.end]
        if _WORKED_OUT.search(
            answer[max(0, value.start - WORKED_OUT_BEFORE) : value.end + WORKED_OUT_AFTER]
        ):
            # the answer presents the value as worked out ("so the total is $79", "or
            # £220 altogether") and no derivation reproduces it: a wrong sum and a sum
            # of operands the check cannot see look the same, so it is unsupported,
            # not contradicted
            reason = (
                f"{value.kind} not confirmed: the answer works out {said}, which could "
                f"not be derived from the context's {passage[v.start : v.end]}"
            )
            out.append(
                Finding(value.start, value.end, value.kind, "absent", (i, v.start, v.end), reason)
            )
            return
        reason = f"{value.kind} mismatch: the answer says {said} but the context says {passage[v.start : v.end]}"
        out.append(
            Finding(value.start, value.end, value.kind, "conflict", (i, v.start, v.end), reason)
        )
    elif _derived(value, operands, premises, approximate=said_about is not None, change=change):
        # worked out from values of another kind (a duration from two times)
        out.append(Finding(value.start, value.end, value.kind, "match", None, WORKED_OUT_REASON))
    elif value.kind != "quantity" or value.unit is not None:
        out.append(Finding(value.start, value.end, value.kind, "absent"))


def _clause_keys(context: Sequence[str]) -> list[tuple[int, int, int, set[str]]]:
    """(passage, start, end, content keys) of every context clause, computed once."""
    return [
        (i, s, e, content_keys(passage[s:e]))
        for i, passage in enumerate(context)
        for s, e in clause_spans(passage)
    ]


def _best_sentence(
    keys: set[str], clauses: list[tuple[int, int, int, set[str]]]
) -> tuple[float, int, int, int] | None:
    best = None
    for i, s, e, theirs in clauses:
        if not keys or not theirs:
            continue
        # Relative to the shorter clause: an answer that restates a context clause
        # and adds something ("... within 30 days") still restates it.
        shared = len(keys & theirs)
        share = shared / min(len(keys), len(theirs)) if shared >= 2 else 0.0
        if best is None or share > best[0]:
            best = (share, i, s, e)
    return best


def sentence_findings(context: Sequence[str], answer: str) -> list[Finding]:
    out: list[Finding] = []
    needed = LONG_SENTENCE_OVERLAP if _is_long(context) else SENTENCE_OVERLAP
    clauses = _clause_keys(context)
    # A class word the context uses elsewhere may be aligned with the wrong clause (a
    # timetable names every weekday): only a word it never uses is a contradiction.
    used = {w.lower() for p in context for w in re.findall(r"[A-Za-z]+", p)}
    for s, e in clause_spans(answer):
        sentence = answer[s:e]
        keys = content_keys(sentence)
        best = _best_sentence(keys, clauses)
        if best is None or best[0] < needed:
            continue
        share, i, cs, ce = best
        evidence = context[i][cs:ce]
        # A leading "No," answers the question; it negates nothing in the sentence.
        particle = _PARTICLE.match(sentence)
        ours = _negation(sentence, particle.end() if particle else 0)
        flipped = (i, cs, ce) if _flips(sentence, ours, context[i], evidence) else None
        if flipped is not None:
            i, cs, ce = flipped
            target = ours or _AUX.search(sentence)
            a, b = (s + target.start(), s + target.end()) if target else (s, e)
            what = "negates what the context states" if ours else "affirms what the context negates"
            out.append(
                Finding(
                    a, b, "negation", "conflict", (i, cs, ce), f"negation flip: the answer {what}"
                )
            )
            continue
        their_words = {stem(w.lower()) for w in re.findall(r"[A-Za-z]+", evidence)}
        their_lower = {w.lower() for w in re.findall(r"[A-Za-z]+", evidence)}
        for m in re.finditer(r"[A-Za-z]+", sentence):
            word = m.group().lower()
            opposite = _OPPOSITE.get(word)
            if opposite and stem(opposite) in their_words and stem(word) not in their_words:
                reason = (
                    f"antonym: the answer says '{m.group()}' where the context says '{opposite}'"
                )
                out.append(
                    Finding(s + m.start(), s + m.end(), "antonym", "conflict", (i, cs, ce), reason)
                )
                continue
            rival = _rival(word, their_lower)
            if rival is not None and not _hedged(sentence, m.start()) and not _uses(used, word):
                reason = f"different {word_class(word)}: the answer says '{m.group()}' where the context says '{rival}'"
                out.append(
                    Finding(s + m.start(), s + m.end(), "class", "conflict", (i, cs, ce), reason)
                )
    return out


def _flips(sentence: str, ours: re.Match[str] | None, passage: str, evidence: str) -> bool:
    """Whether `sentence` negates what `evidence` (a clause of `passage`) states, or
    states what it negates, about the words they share."""
    theirs = _negation(evidence)
    return (
        bool(ours) != bool(theirs)
        and states_something(evidence)  # not a table row or a heading
        and not _CONDITION.match(sentence)
        and not _structured(passage)
        and not _same_polarity(sentence, evidence)
        and (
            _negates_shared_words(sentence, ours, evidence)
            if ours
            else theirs is not None and _negates_shared_words(evidence, theirs, sentence)
        )
    )


def _negation(text: str, pos: int = 0) -> re.Match[str] | None:
    """The first negation word of `text` from `pos` that is not part of an idiom."""
    idioms = [(m.start(), m.end()) for m in _IDIOM.finditer(text)]
    for m in NEGATION.finditer(text, pos):
        if not any(a <= m.start() < b for a, b in idioms):
            return m
    return None


def _negates_shared_words(negated_side: str, negation: re.Match[str], other: str) -> bool:
    """Whether what one side negates is a word the other side says: "cannot be returned"
    against "can be returned" is a flip; "are not allowed on the trip" against "must
    stay at home" restates it in other words. `negation` is the match in `negated_side`."""
    following = re.findall(r"[A-Za-z]+", negated_side[negation.end() :])[:6]
    word = next((w.lower() for w in following if w.lower() not in _SKIP_AFTER_NEGATION), None)
    if word is None:
        return False
    return stem(word) in {stem(w.lower()) for w in re.findall(r"[A-Za-z]+", other)}


def _structured(passage: str) -> bool:
    """A JSON or key: value passage: its "clauses" are fields, not statements to negate."""
    stripped = passage.lstrip()
    return stripped.startswith(("{", "[")) or stripped.count('":') >= 2


def _same_polarity(sentence: str, evidence: str) -> bool:
    """Whether a clause pair that differs in negation words still says the same:
    one side negates with a word ("excluded"), or a negated excess meets an upper
    bound ("not more than 10 days" / "up to ten days"), or a negated shortfall a lower
    bound ("no component below 6.0" / "each at least 6.0")."""
    if NEGATIVE_WORDS.search(sentence) or NEGATIVE_WORDS.search(evidence):
        return True
    if _CHECK_THAT.search(sentence) or _CHECK_THAT.search(evidence):
        return True
    for negated, bound in _BOUNDS:
        if (negated.search(evidence) and bound.search(sentence)) or (
            negated.search(sentence) and bound.search(evidence)
        ):
            return True
    return False


#: An instruction to check something states no fact either way: "check that the hose
#: is not kinked" says what "check the hose for kinks" says.
_CHECK_THAT = re.compile(
    r"\b(?:check|make\s+sure|ensure|verify|confirm|see)\b(?:\s+(?:that|whether|if|for))?",
    re.IGNORECASE,
)

_HEDGE = re.compile(
    r"\b(?:chance|chances|risk|probability|likelihood|possibility|odds|hint|threat)\s+of\s+"
    r"(?:\w+\s+)?$",
    re.IGNORECASE,
)


def _uses(used: set[str], word: str) -> bool:
    """Whether the context uses `word` or the noun it is made from ("monthly" where the
    context says "per month", "annually" where it says "annual")."""
    roots = {word, word.removesuffix("ly"), "day" if word == "daily" else word}
    return not roots.isdisjoint(used)


def _hedged(text: str, start: int) -> bool:
    """Whether the word at `start` is named as a possibility, not stated: "a 10% chance
    of rain" says nothing against "partly cloudy"."""
    return _HEDGE.search(text[max(0, start - 40) : start]) is not None


def _rival(word: str, theirs: set[str]) -> str | None:
    """Another member of `word`'s closed class among `theirs`, when `word` is not."""
    name = word_class(word)
    if name is None or word in theirs:
        return None
    rivals = sorted(theirs & members(name))
    return rivals[0] if rivals else None


def class_findings(context: Sequence[str], answer: str, taken: Sequence[Finding]) -> list[Finding]:
    """In a short context, a loose-class word the context never uses, where it uses
    another member of that class ("cloudy" against a forecast's "sunny")."""
    if _is_long(context):
        return []
    words = [(i, m) for i, p in enumerate(context) for m in re.finditer(r"[A-Za-z]+", p)]
    used = {m.group().lower() for _, m in words}
    out: list[Finding] = []
    for m in re.finditer(r"[A-Za-z]+", answer):
        word = m.group().lower()
        name = word_class(word)
        if name is None or not is_loose(name) or _uses(used, word) or _hedged(answer, m.start()):
            continue
        if any(f.start < m.end() and m.start() < f.end for f in taken):
            continue  # the clause check already judged it
        rivals = [(i, r) for i, r in words if r.group().lower() in members(name)]
        if not rivals:
            continue
        i, r = rivals[0]
        lo, hi = sentence_around(context[i], r.start(), r.end())
        reason = (
            f"different {name}: the answer says '{m.group()}' where the context says '{r.group()}'"
        )
        out.append(Finding(m.start(), m.end(), "class", "conflict", (i, lo, hi), reason))
    return out


def check(context: Sequence[str], answer: str, query: str | None = None) -> list[Finding]:
    """Every typed finding for `answer` against `context` (and the values of the user's
    `query`, which the answer may restate), by position."""
    found = value_findings(context, answer, query) + sentence_findings(context, answer)
    found += class_findings(context, answer, found)
    found += role_findings(context, answer)
    found += name_swap_findings(context, answer, found)
    found += field_findings(context, answer, found)
    found += near_number_findings(context, answer, found, query)
    found += boolean_findings(context, answer, found)
    flips = [f for f in found if f.kind in ("negation", "antonym") and f.verdict == "conflict"]
    judged = [
        (s, e) for s, e in clause_spans(answer) if any(f.start < e and s < f.end for f in flips)
    ]
    found += polarity_findings(context, answer, judged, _same_polarity)
    found = record_findings(context, answer, found)
    return sorted(found, key=lambda f: (f.start, f.end))


def adjust(tokens: Sequence[TokenProb], findings: Sequence[Finding]) -> list[TokenProb]:
    """Token probabilities with the findings applied: matches capped, conflicts and
    absent values raised. Tokens outside every finding are unchanged."""
    out = []
    for t in tokens:
        p = t.prob
        for f in findings:
            if f.start < t.end and t.start < f.end:
                if f.verdict == "match":
                    p = min(p, MATCH_CAP)
                elif f.verdict == "conflict":
                    p = max(p, CONFLICT_FLOOR)
                else:
                    p = max(p, ABSENT_FLOOR)
        out.append(TokenProb(t.start, t.end, p))
    return out


def floor_score(score: float, findings: Sequence[Finding], context: Sequence[str] = ()) -> float:
    """An answer with a contradicted value scores at least as a contradiction, one with a
    clock time of its own at least `ABSENT_TIME_FLOOR`. Not in a long context: there a
    conflict is weaker evidence (see `LONG_CONTEXT_CHARS`), and it counts through its
    raised tokens like any other signal."""
    if _is_long(context):
        return score
    if any(f.verdict == "conflict" for f in findings):
        return max(score, CONFLICT_FLOOR)
    if any(f.kind == "time" and f.verdict == "absent" for f in findings):
        return max(score, ABSENT_TIME_FLOOR)
    return score


def sentence_around(passage: str, start: int, end: int) -> tuple[int, int]:
    """The sentence (or line, in key: value data) of `passage` holding `[start, end)`."""
    left = max(passage.rfind(ch, 0, start) for ch in ".!?\n")
    rights = [i for i in (passage.find(ch, end) for ch in ".!?\n") if i >= 0]
    lo = left + 1
    while lo < start and passage[lo].isspace():
        lo += 1
    hi = min(rights) + 1 if rights else len(passage)
    return lo, min(hi, len(passage))
