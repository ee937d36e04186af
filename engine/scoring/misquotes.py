"""Misquoted figures: an answer amount that is a context amount with one digit changed,
dropped, added or two neighbours swapped ("€48" for "€38", "4.59%" for "4.69%",
"$1,395" for "$1,359"), read in the answer's unit ("10 days" against "two weeks").

Where the nearest context amount differs from the answer's in more than that, the
answer's figure reads as worked out ("£480 across both trips" beside "£650 a night";
"58% of the votes" beside "75% turnout") about as often as wrong. Over the conflict
findings on amounts of the twenty-nine development sets before this rule, misquotes were
on a wrong answer's labelled error 39 times in 46 (5 on faithful answers), other figures
46 times in 107 (45 on faithful answers). Where the context states several amounts of a
kind, the typed check therefore calls only a misquote a contradiction; another figure is
unconfirmed (`absent`), and `typed_checks.UNRELATED_FLOOR` keeps the answer over the
threshold without calling it contradicted.
"""

from __future__ import annotations

from .typed_values import Value


def _digits(x: float) -> str:
    """The significant digits of `x` ("1250.0" is "125", "4.5" is "45")."""
    text = f"{abs(round(x, 6)):.10g}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text.replace(".", "").lstrip("0") or "0"


def misquote(said: float, stated: float) -> bool:
    """Whether `said` is `stated` (both in the answer's unit and scale) with one digit
    changed, dropped or added, or two neighbouring digits swapped."""
    x, y = _digits(said), _digits(stated)
    if len(x) == len(y):
        diff = [k for k in range(len(x)) if x[k] != y[k]]
        if len(diff) <= 1:
            return True
        a, b = diff[0], diff[-1]
        return len(diff) == 2 and b == a + 1 and (x[a], x[b]) == (y[b], y[a])
    if abs(len(x) - len(y)) == 1:
        short, long = sorted((x, y), key=len)
        return any(long[:k] + long[k + 1 :] == short for k in range(len(long)))
    return False


def misquoted(answer_value: Value, context_value: Value) -> bool:
    """Whether the answer's amount misquotes the context's, read in the answer's own
    unit and scale ("10 days" against "two weeks" is 10 against 14; "$700k" against
    "$900,000" is 700 against 900)."""
    said = float(answer_value.canon[0])
    base = answer_value.base()
    if not base:
        return misquote(said, float(context_value.canon[0]))
    return misquote(said, context_value.base() * said / base)
