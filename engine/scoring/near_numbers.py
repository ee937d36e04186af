"""A plain number one keystroke away from the number of the context clause it restates.

The value checks compare quantities that carry a unit ("$4.2 million", "12 kg"). A bare
count ("up from 850,000 the year before", "an average of 4,400 households") has no unit to
compare by, and bare numbers of a passage are often ids, years and counts of different
things, so those checks leave it alone. This check settles the one case that needs no
unit: the answer's clause restates a context clause (the words around the number are the
clause's), that clause states a number written with the same digits but one (4,100 against
4,400) or two neighbouring digits swapped (14,200 against 12,400), and the answer's number
is not in the context and cannot be worked out from its figures (a sum, a difference, a
product, a ratio or a percentage of two, rounded where the answer's number is round). That
is how a copied figure goes wrong, not how a worked-out one looks.

Written against the customer-style development sets (typed checks alone: 4 wrong answers
found that nothing else flagged, no faithful answer flagged).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from ..text.sentences import clause_spans
from ..text.words import content_keys
from .findings import Finding
from .typed_values import Value, values

#: Numbers below this are counts that recur everywhere ("3 days", "Years 10-11").
SMALLEST = 100
#: Content words the answer's clause (without its number) shares with the context clause,
#: at least, and as a share of the answer clause's words.
SHARED_WORDS = 2
SHARED_SHARE = 0.3
#: A round number ("about 1,400") may be a worked-out figure rounded this much.
ROUNDING = 0.02


def near_number_findings(
    context: Sequence[str], answer: str, taken: Sequence[Finding], query: str | None = None
) -> list[Finding]:
    """A `conflict` for each bare answer number that is a near miss of the number its
    aligned context clause states; nothing for a number another check already judged."""
    stated = [(i, v) for i, passage in enumerate(context) for v in _numbers(passage)]
    pool = [v.base() for _, v in stated] + [v.base() for v in _numbers(query or "")]
    mine = _numbers(answer)
    clauses = [
        (i, s, e, content_keys(passage[s:e]))
        for i, passage in enumerate(context)
        for s, e in clause_spans(passage)
    ]
    out = []
    for value in mine:
        if any(f.start < value.end and value.start < f.end for f in taken):
            continue
        x = value.base()
        if x < SMALLEST or _year(x) or any(_scaled_equal(x, y) for y in pool):
            continue
        aligned = _aligned_clause(answer, value, clauses)
        if aligned is None:
            continue
        i, s, e = aligned
        rivals = [v for v in _numbers(context[i][s:e]) if not _year(v.base())]
        rival = next((v for v in rivals if _one_keystroke(x, v.base())), None)
        if rival is None:
            continue
        others = [v.base() for v in mine if v is not value]
        if _worked_out(x, pool + others):
            continue
        said, theirs = answer[value.start : value.end], context[i][s + rival.start : s + rival.end]
        out.append(
            Finding(
                value.start,
                value.end,
                "quantity",
                "conflict",
                (i, s + rival.start, s + rival.end),
                f"quantity mismatch: the answer says {said} but the context says {theirs}",
            )
        )
    return out


def _numbers(text: str) -> list[Value]:
    return [v for v in values(text) if v.kind == "quantity"]


def _year(x: float) -> bool:
    return float(x).is_integer() and 1900 <= x <= 2100


def _scaled_equal(x: float, y: float) -> bool:
    """The same figure, or the same in thousands or millions ("1.2 million", "1,200,000")."""
    return any(abs(x - y * k) <= 1e-6 * max(1.0, abs(x)) for k in (1, 1e3, 1e6, 1e-3, 1e-6))


def _aligned_clause(
    answer: str, value: Value, clauses: list[tuple[int, int, int, set[str]]]
) -> tuple[int, int, int] | None:
    """The context clause sharing the most content words with the value's clause."""
    around = next(((s, e) for s, e in clause_spans(answer) if s <= value.start < e), None)
    if around is None:
        return None
    s0, e0 = around
    keys = content_keys(answer[s0 : value.start] + " " + answer[value.end : e0])
    best: tuple[int, int, int, int] | None = None
    for i, s, e, theirs in clauses:
        shared = len(keys & theirs)
        enough = shared >= SHARED_WORDS and shared >= SHARED_SHARE * len(keys)
        if enough and (best is None or shared > best[0]):
            best = (shared, i, s, e)
    return None if best is None else best[1:]


def _digits(x: float) -> str:
    return re.sub(r"\D", "", f"{x:.2f}".rstrip("0").rstrip("."))


def _one_keystroke(x: float, y: float) -> bool:
    """Same number of digits, and one differs, or two neighbouring ones are swapped."""
    a, b = _digits(x), _digits(y)
    if len(a) != len(b) or a == b:
        return False
    diff = [k for k in range(len(a)) if a[k] != b[k]]
    if len(diff) == 1:
        return True
    return (
        len(diff) == 2
        and diff[1] == diff[0] + 1
        and (a[diff[0]], a[diff[1]]) == (b[diff[1]], b[diff[0]])
    )


def _worked_out(x: float, pool: list[float]) -> bool:
    """A sum, difference, product, ratio or percentage of two figures, or the sum of all."""
    figures = list(dict.fromkeys(pool))[:40]
    tolerance = ROUNDING if x % 100 == 0 else 1e-6

    def close(y: float) -> bool:
        return abs(y - x) <= tolerance * max(1.0, abs(x))

    if len(figures) > 2 and close(sum(figures)):
        return True
    return any(
        close(a + b) or close(a - b) or close(a * b) or close(a * b / 100) or (b and close(a / b))
        for a, b in itertools.permutations(figures, 2)
    )
