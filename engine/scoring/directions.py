"""A change told in the wrong direction: "then increased to $5.1M" after "$5.5M in Q3".

The value checks compare each figure with the context, and every figure of
"went from $4.2M in Q1 to $4.8M in Q2 and $5.5M in Q3, then increased to $5.1M in Q4"
is right; the error is the word that tells the change. Two readings need no model:

* **The answer's own figures.** A direction word followed by "to B" ("increased to
  $5.1M", "fell to 288") or by "from A to B", where A is the value it starts from: the
  one after "from", else the nearest value before it in the same sentence that has the
  same unit. Up with B below A, or down with B above A, is a contradiction.
* **A signed figure in the context.** "A gain of $1.13" or "up 2.29%" where the context
  writes that figure with a minus sign (`"change": -1.13`, `-2.29%` in a table), or a
  fall where it writes an explicit plus sign.

Years, dates and clock times are not amounts and are never compared. A change whose
figures the answer hedges ("to about") is still compared: a rounded figure keeps its
side of the start.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..text.sentences import split_sentences
from .findings import Finding
from .typed_values import Value, values

UP = (
    r"increase[sd]?|rose|rise[sn]?|rising|gr[eo]w[sn]?|growing|climb(?:ed|s)?|jump(?:ed|s)?"
    r"|gain(?:ed|s)?|expand(?:ed|s)?|surg(?:ed|es)|soar(?:ed|s)?|up"
)
DOWN = (
    r"decrease[sd]?|fell|fall(?:s|en)?|falling|drop(?:ped|s)?|declin(?:ed|es|e)|shr[ai]nk|shrunk"
    r"|slipp?(?:ed|s)?|slid|plunge[sd]?|contract(?:ed|s)|loss|lost|down|reduc(?:ed|es)"
)
_DIRECTION = re.compile(rf"\b(?:(?P<up>{UP})|(?P<down>{DOWN}))\b", re.IGNORECASE)
#: What may stand between the direction word and "to B": "increased sharply to",
#: "dropped back to", "rose again to".
_TO = re.compile(
    r"^\s*(?:(?:[a-z]+ly|back|again|further|slightly|sharply|then)\s+){0,2}to\s+"
    r"(?:(?:about|around|roughly|nearly|almost|approximately|just)\s+(?:over\s+|under\s+)?)?$",
    re.IGNORECASE,
)
_FROM_TO = re.compile(r"^\s*(?:(?:[a-z]+ly)\s+)?from\s+$", re.IGNORECASE)
#: Between "from A" and "to B": a few words naming A's time or place ("in Q1").
_FROM_GAP = re.compile(r"^\s*(?:[\w'’]+\s+){0,4}?to\s+(?:about\s+|around\s+|roughly\s+)?$")
_NEAR = 20  # characters between a direction word and the figure it tells, at most
_SPREAD = 5.0  # a start and an end further apart than this are not one series
_TELLS_CHANGE = re.compile(r"^[\s-]*[a-z]*\s*$", re.IGNORECASE)
_RANGE = re.compile(r"\s?[–-]\s?\d")
_SIGNED = r"(?<![\w.])(?P<sign>[-−+])\s?{number}(?![\d])"


def _amounts(text: str) -> list[Value]:
    return [v for v in values(text) if v.kind == "quantity"]


def _same_unit(a: Value, b: Value) -> bool:
    return a.unit == b.unit


def own_figure_findings(answer: str) -> list[Finding]:
    out: list[Finding] = []
    for sent in split_sentences(answer):
        start, end = sent.start, sent.end
        sentence = answer[start:end]
        found = _amounts(sentence)
        for m in _DIRECTION.finditer(sentence):
            if m.group().lower() in ("up", "down"):
                continue  # "up to €2,880" is a bound, not a change
            after = [v for v in found if v.start >= m.end()]
            if not after:
                continue
            target = after[0]
            gap = sentence[m.end() : target.start]
            origin: Value | None = None
            if _FROM_TO.match(gap) and len(after) > 1:
                # "rose from 1,200 to 1,350"
                origin, target = target, after[1]
                if not _FROM_GAP.match(sentence[origin.end : target.start]):
                    continue
            elif _TO.match(gap):
                before = [
                    v for v in found
                    if v.end <= m.start() and _same_unit(v, target)
                    and not _DIRECTION.search(sentence[v.end : m.start()])
                ]  # fmt: skip
                origin = before[-1] if before else None
                if origin is not None and _TELLS_CHANGE.match(sentence[origin.end : m.start()]):
                    origin = None  # "a 4.3-point fall to 14.6": the change, not the start
            if (
                origin is None
                or not _same_unit(origin, target)
                or _RANGE.match(sentence, target.end)
            ):
                continue  # "slip to 6–8" is a record, not an amount
            a, b = float(origin.canon[0]), float(target.canon[0])
            if min(a, b) <= 0 or max(a, b) / min(a, b) > _SPREAD:
                continue  # "$720,000 … a fare increase to $2.50": not one series
            wrong = (m.group("up") and b < a) or (m.group("down") and b > a)
            if wrong:
                said = "up" if m.group("up") else "down"
                reason = (
                    f"wrong direction: the answer says {m.group()!r} ({said}) from "
                    f"{sentence[origin.start : origin.end]} to {sentence[target.start : target.end]}"
                )
                out.append(
                    Finding(start + m.start(), start + m.end(), "antonym", "conflict", None, reason)
                )
    return out


def signed_context_findings(context: Sequence[str], answer: str) -> list[Finding]:
    out: list[Finding] = []
    for v in _amounts(answer):
        before = answer[max(0, v.start - _NEAR) : v.start]
        words = list(_DIRECTION.finditer(before))
        if not words:
            continue
        m = words[-1]
        if (
            answer[m.end() : m.end() + 4].lower().startswith(" to")
            or m.group().lower() == "up"
            and (
                re.search(
                    r"\b(?:add|adds|added|adding|sum|sums|summed|make|made|count|counted)\s+$",
                    before[: m.start()],
                    re.IGNORECASE,
                )
            )
        ):
            continue  # "up to", "added up": a bound or a sum
        if _DIRECTION.search(answer[v.end : v.end + 3]):
            continue
        number = re.escape(answer[v.start : v.end].lstrip("$€£¥").rstrip("%").strip())
        if not re.fullmatch(r"[\d.,]+", number.replace("\\", "")):
            continue
        signed = re.compile(_SIGNED.format(number=number))
        for i, passage in enumerate(context):
            for s in signed.finditer(passage):
                negative = s.group("sign") in "-−"
                if (m.group("up") and negative) or (m.group("down") and not negative):
                    a = v.start - len(before) + m.start()
                    reason = (
                        f"wrong direction: the answer says {m.group()!r} where the context "
                        f"gives {s.group().strip()}"
                    )
                    out.append(
                        Finding(
                            a, a + len(m.group()), "antonym", "conflict",
                            (i, s.start(), s.end()), reason,
                        )
                    )  # fmt: skip
                    break
            else:
                continue
            break
    return out


def direction_findings(context: Sequence[str], answer: str) -> list[Finding]:
    """Changes the answer tells in the wrong direction (module docstring)."""
    found = own_figure_findings(answer) + signed_context_findings(context, answer)
    seen: set[tuple[int, int]] = set()
    out = []
    for f in found:
        if (f.start, f.end) not in seen:
            seen.add((f.start, f.end))
            out.append(f)
    return out
