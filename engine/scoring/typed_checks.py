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

import re
from collections.abc import Sequence

from ..text.sentences import clause_spans
from ..text.words import content_keys
from ..types import TokenProb
from .alignment import LONG_SLOT_WORDS, SLOT_WORDS, is_long, sentence_around
from .booleans import boolean_findings
from .directions import direction_findings
from .fields import field_findings
from .findings import Finding, Verdict
from .misquotes import misquoted
from .name_neighbours import name_neighbour_findings
from .name_swaps import name_swap_findings
from .near_numbers import near_number_findings
from .negated_clauses import negated_clause_findings
from .negations import _same_polarity, class_findings, sentence_findings
from .own_arithmetic import arithmetic_findings
from .polarity import polarity_findings
from .rates import counts_of, missed_product, per_unit, products
from .records import record_findings
from .roles import role_findings
from .typed_values import (
    Value,
    compatible,
    same_dimension,
    values,
)
from .weekdays import judge as judge_weekdays
from .worked_out import (
    APPROXIMATE,
    CHANGE,
    WORKED_OUT,
    approximate_time,
    asked_hour,
    comparable,
    derived,
    own_operands,
    with_years,
)

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
#: An amount that differs from the context's aligned amount in more than a misquote's
#: digit (`misquotes`) is unconfirmed, not contradicted: on the development sets such
#: conflicts were right about half the time, so the answer scores over the default
#: threshold and its uncertainty band (0.5 to 0.6), not as a contradiction.
UNRELATED = "differs from the context's figure in more than one digit"
UNRELATED_FLOOR = 0.65
#: How far before and after a value a calculation word ("so the total is", "or £220
#: altogether") marks it as worked out. After-the-value cues were added with the fifteen
#: development sets: 7 faithful answers fewer with a false contradiction, 3 wrong ones fewer
#: with a right one (docs/benchmarks.md "Customer-style cases").
WORKED_OUT_BEFORE = 45
WORKED_OUT_AFTER = 45


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


_DIGIT = re.compile(r"\d")
#: A passage this short states one thing: its only amount of a kind is the answer's.
SHORT_PASSAGE = 160
#: The field a JSON value is the value of: `"warranty_years": ` before the number.
_FIELD_KEY = re.compile(r"[\"']([A-Za-z][\w ]{1,40})[\"']\s*:\s*[\"']?$")


def _restates(answer: str, value: Value, passage: str, v: Value) -> bool:
    """Whether every content word around the answer amount is around `v` too: a short
    answer sentence restating the context's ("Adult tickets are $13." for "Adult tickets
    are $12 and child tickets are $11.")."""
    mine = {k for k in _window_keys(answer, value.start, value.end) if not _DIGIT.search(k)}
    return bool(mine) and mine <= _window_keys(passage, v.start, v.end)


def _aligned(answer: str, value: Value, passage: str, v: Value, alone: bool) -> bool:
    """Whether the context amount `v` is about what the answer amount is about: their
    surroundings share `SLOT_WORDS` content words (one, where `v` is the `alone` amount
    of its kind the context states; none in a passage of one short statement), its JSON
    field names a word of the answer's, or the answer's sentence restates another value
    of `v`'s sentence (the other end of a range, a row's other figures)."""
    mine = _window_keys(answer, value.start, value.end)
    shared = len(mine & _window_keys(passage, v.start, v.end))
    if shared >= SLOT_WORDS or _restates(answer, value, passage, v):
        return True
    if alone and (shared or len(passage) <= SHORT_PASSAGE):
        return True
    key = _FIELD_KEY.search(passage[max(0, v.start - 60) : v.start])
    if key and mine & content_keys(key.group(1).replace("_", " ")):
        return True  # `"warranty_years": 2` names what the 2 is
    lo, hi = sentence_around(answer, value.start, value.end)
    clo, chi = sentence_around(passage, v.start, v.end)
    theirs = [
        w for w in values(passage[clo:chi]) if (w.start + clo, w.end + clo) != (v.start, v.end)
    ]
    return any(
        a.same(b)
        for a in values(answer[lo:hi])
        if (a.start + lo, a.end + lo) != (value.start, value.end)
        for b in theirs
    )


def value_findings(
    context: Sequence[str], answer: str, query: str | None = None, align: bool = True
) -> list[Finding]:
    """Typed values of the answer against the context. A value the user's own question
    states ("I have a 15 kg dog") is the user's premise: restating it is no claim.
    `align=False` (an answer in another language than its context, whose words cannot
    be compared) contradicts an amount with the nearest comparable one, rate or not."""
    stated = [(i, p, v) for i, p in enumerate(context) for v in with_years(values(p))]
    asked = values(query) if query else []
    long_context = is_long(context)
    out: list[Finding] = []
    # the answer's values confirmed so far (stated or worked out): a later step of a
    # calculation may use them ("leaving £501 ... £100.20 ... so it pays £400.80")
    confirmed: list[tuple[int, str, Value]] = []
    for value in values(answer):
        found = len(out)
        _judge_value(value, answer, query, stated, asked, confirmed, long_context, out, align)
        if value.kind in ("quantity", "time", "date") and (
            len(out) == found or out[-1].verdict == "match"
        ):
            confirmed.append((-2, answer, value))
    return out


def _judged(
    value: Value, verdict: Verdict, at: tuple[int, int, int] | None, reason: str
) -> Finding:
    return Finding(value.start, value.end, value.kind, verdict, at, reason)


def _judge_value(
    value: Value,
    answer: str,
    query: str | None,
    stated: list[tuple[int, str, Value]],
    asked: list[Value],
    confirmed: list[tuple[int, str, Value]],
    long_context: bool,
    out: list[Finding],
    align: bool = True,
) -> None:
    """Append the finding for one answer value to `out` (none when it is worked out)."""
    same = [c for c in stated if c[2].same(value)]
    if same:
        i, _, v = same[0]
        out.append(Finding(value.start, value.end, value.kind, "match", (i, v.start, v.end)))
        return
    if any(v.same(value) for v in asked) or asked_hour(value, query):
        out.append(Finding(value.start, value.end, value.kind, "match"))
        return
    if approximate_time(answer, value, stated):
        out.append(Finding(value.start, value.end, value.kind, "match"))
        return
    rivals = [c for c in stated if comparable(value, c[2])]
    renamed = [  # the same number in another unit: "5 miles" against "5 km"
        c for c in stated
        if c[2].kind == "quantity" and value.kind == "quantity" and c[2].canon == value.canon
        and value.unit and c[2].unit and not compatible(c[2].unit, value.unit)
        and same_dimension(c[2].unit, value.unit)
    ]  # fmt: skip
    pool = renamed or rivals
    per: list[tuple[int, str, Value]] = []
    if value.kind == "quantity" and align:  # a rate against a rate, a total against a total
        rate = per_unit(answer, value.start, value.end)
        pool = [
            c
            for c in pool
            if per_unit(c[1], c[2].start, c[2].end) == rate
            or _restates(answer, value, c[1], c[2])  # "a bag costs £45" for "£55 each"
        ]
        # totals the answer may have worked out from a stated rate
        per = [c for c in rivals if not rate and per_unit(c[1], c[2].start, c[2].end)]
    if pool and long_context:
        mine = _window_keys(answer, value.start, value.end)
        pool = [
            c
            for c in pool
            if len(mine & _window_keys(c[1], c[2].start, c[2].end)) >= LONG_SLOT_WORDS
        ]
    said_about = APPROXIMATE.search(answer[max(0, value.start - 25) : value.start])
    change = CHANGE.search(answer[max(0, value.start - 40) : value.end + 40]) is not None
    own = own_operands(answer, value)
    operands = (
        stated
        + [(-1, answer, v) for v in own if v.kind != "quantity" or v.unit]
        + [c for c in confirmed if c[2].start != value.start]
    )
    premises = [*asked, *(v for v in own if v.kind == "quantity")]
    if pool and derived(
        value, operands, premises, approximate=said_about is not None, change=change
    ):
        # a difference or sum of stated values: worked out, not contradicted, and as
        # settled as a value the context states (the detector's own doubt is capped)
        out.append(Finding(value.start, value.end, value.kind, "match", None, WORKED_OUT_REASON))
        return
    restated = [  # the context's rates the answer's own sentence restates
        w for w in own if any(w.same(c[2]) for c in per) and per_unit(answer, w.start, w.end)
    ]
    own_counts = counts_of([w for w in own if w.kind == "quantity"])
    if restated and (product := missed_product(value.base(), restated, own_counts)):
        reason = (
            f"{value.kind} does not add up: the answer's own rate and count give "
            f"{product:,.2f}, not {answer[value.start : value.end]}"
        )
        out.append(Finding(value.start, value.end, value.kind, "conflict", None, reason))
        return
    if per and products(value.base(), per, counts_of(premises)):
        # a stated rate times a count of the question or of the answer's sentence
        out.append(Finding(value.start, value.end, value.kind, "match", None, WORKED_OUT_REASON))
        return
    if pool:
        i, passage, v = _closest(answer, value, pool)
        said = answer[value.start : value.end]
        if WORKED_OUT.search(
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
            out.append(_judged(value, "absent", (i, v.start, v.end), reason))
            return
        if (
            value.kind == "quantity"
            and align
            and not _aligned(answer, value, passage, v, len(pool) == 1)
        ):
            # the nearest amount is about something else: the value is unconfirmed,
            # and nothing the context says contradicts it
            reason = (
                f"{value.kind} not confirmed: the answer says {said}, and no amount of the "
                "context is stated about the same thing"
            )
            out.append(Finding(value.start, value.end, value.kind, "absent", None, reason))
            return
        several = value.kind == "quantity" and align and len(rivals) > 1
        if several and not misquoted(value, v):
            # the aligned amount the answer misquotes, if another one is ("a day pass
            # costs $25" beside "a single ticket costs $6 and a day pass $15")
            i, passage, v = next(
                (
                    c
                    for c in pool
                    if misquoted(value, c[2]) and _aligned(answer, value, c[1], c[2], False)
                ),
                (i, passage, v),
            )
        theirs = passage[v.start : v.end]
        if several and not misquoted(value, v):
            # not a copy of the context's figure with a digit wrong, where the context
            # states more than one such amount: it may be worked out from them in steps
            # the checks cannot follow (`misquotes`)
            reason = (
                f"{value.kind} not confirmed: the answer says {said}, which {UNRELATED} "
                f"({theirs}) and could not be derived from it"
            )
            out.append(_judged(value, "absent", (i, v.start, v.end), reason))
            return
        reason = f"{value.kind} mismatch: the answer says {said} but the context says {theirs}"
        out.append(_judged(value, "conflict", (i, v.start, v.end), reason))
    elif derived(value, operands, premises, approximate=said_about is not None, change=change):
        # worked out from values of another kind (a duration from two times)
        out.append(Finding(value.start, value.end, value.kind, "match", None, WORKED_OUT_REASON))
    elif per:
        i, passage, v = per[0]
        reason = (
            f"{value.kind} not confirmed: the answer says {answer[value.start : value.end]}, "
            f"and the context gives a rate ({passage[v.start : v.end]} per unit), not this total"
        )
        out.append(
            Finding(value.start, value.end, value.kind, "absent", (i, v.start, v.end), reason)
        )
    elif value.kind != "quantity" or value.unit is not None:
        out.append(Finding(value.start, value.end, value.kind, "absent"))


def check(context: Sequence[str], answer: str, query: str | None = None) -> list[Finding]:
    """Every typed finding for `answer` against `context` (and the values of the user's
    `query`, which the answer may restate), by position."""
    found = value_findings(context, answer, query) + sentence_findings(context, answer)
    found += class_findings(context, answer, found)
    found += role_findings(context, answer)
    found += name_swap_findings(context, answer, found)
    found += name_neighbour_findings(context, answer, found, query)
    found += field_findings(context, answer, found)
    found += near_number_findings(context, answer, found, query)
    found += boolean_findings(context, answer, found)
    found += negated_clause_findings(context, answer, found)
    found += direction_findings(context, answer)
    own = arithmetic_findings(answer, [f for f in found if f.verdict != "absent"])
    if own:  # a result the answer's own figures miss: no longer merely unconfirmed
        found = [
            f
            for f in found
            if f.verdict != "absent" or not any(o.start < f.end and f.start < o.end for o in own)
        ] + own
    found = judge_weekdays(found, context, answer, query)
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


def unrelated_floor(findings: Sequence[Finding], context: Sequence[str] = ()) -> float:
    """`UNRELATED_FLOOR` where an amount is unlike the context's aligned one (not in a
    long context, where a conflict too counts only through its tokens); else 0."""
    if is_long(context):
        return 0.0
    return UNRELATED_FLOOR if any(UNRELATED in f.reason for f in findings) else 0.0


def floor_score(score: float, findings: Sequence[Finding], context: Sequence[str] = ()) -> float:
    """An answer with a contradicted value scores at least as a contradiction, one with a
    clock time of its own at least `ABSENT_TIME_FLOOR`. Not in a long context: there a
    conflict is weaker evidence (see `LONG_CONTEXT_CHARS`), and it counts through its
    raised tokens like any other signal."""
    if is_long(context):
        return score
    if any(f.verdict == "conflict" for f in findings):
        return max(score, CONFLICT_FLOOR)
    if any(f.kind == "time" and f.verdict == "absent" for f in findings):
        return max(score, ABSENT_TIME_FLOOR)
    return score
