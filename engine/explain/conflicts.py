"""Rules that decide whether an answer passage conflicts with its evidence sentence.

Each check returns a human-readable reason or None. They are deliberately
conservative where a false "contradiction" would mislead (negation and
entity checks require the rest of the sentence to match), and strict
where the stakes are plain: a different number or date is a contradiction.
"""

from __future__ import annotations

import re

from ..text.words import MONTHS, NUMBER_WORDS, Word, normalize, tokenize

NEGATION_RE = re.compile(
    r"\b(?:not|no|never|none|neither|nor|nothing|nobody|cannot|without)\b|n['’]t\b", re.I
)

UNITS = {
    # length
    "km": "km", "kilometer": "km", "kilometre": "km", "mile": "mi", "mi": "mi",
    "m": "m", "meter": "m", "metre": "m", "cm": "cm", "mm": "mm", "ft": "ft",
    "feet": "ft", "foot": "ft", "inch": "in", "yard": "yd",
    # mass
    "kg": "kg", "kilogram": "kg", "g": "g", "gram": "g", "lb": "lb", "lbs": "lb",
    "pound": "lb", "ton": "t", "tonne": "t", "ounce": "oz", "oz": "oz",
    # time
    "second": "s", "minute": "min", "hour": "h", "day": "d", "week": "wk",
    "month": "mo", "year": "y", "decade": "dec", "century": "c",
    # scale, share, money, temperature
    "thousand": "e3", "million": "e6", "billion": "e9", "trillion": "e12",
    "percent": "%", "%": "%", "$": "usd", "dollar": "usd", "usd": "usd", "€": "eur",
    "euro": "eur", "eur": "eur", "£": "gbp", "gbp": "gbp", "pound sterling": "gbp",
    "°c": "c", "celsius": "c", "°f": "f", "fahrenheit": "f", "degree": "deg",
}  # fmt: skip
_CURRENCY_PREFIX = {"$": "usd", "€": "eur", "£": "gbp"}


def _unit(word: Word) -> str | None:
    s = word.surface.casefold()
    if s in UNITS:
        return UNITS[s]
    singular = s[:-1] if s.endswith("s") and len(s) > 3 else s
    if singular == "centurie":
        singular = "century"
    return UNITS.get(singular)


# "one" and "first" are far more often a pronoun or an adverb than a quantity.
_VAGUE_NUMBER_WORDS = frozenset({"one", "first"})


def _is_number(w: Word) -> bool:
    s = w.surface.casefold()
    return w.kind == "number" or (s in NUMBER_WORDS and s not in _VAGUE_NUMBER_WORDS)


def numbers(text: str) -> set[str]:
    """Canonical numbers in `text` (digits and number words)."""
    out = set()
    for w in tokenize(text):
        if _is_number(w):
            out.add(normalize(w.surface, w.kind))
    return out


def months(text: str) -> set[str]:
    return {MONTHS[w.surface.casefold()] for w in tokenize(text) if w.surface.casefold() in MONTHS}


def quantities(text: str) -> set[tuple[str, str]]:
    """(number, unit) pairs: "5 km", "$3", "40%", "3 million"."""
    words = tokenize(text)
    out = set()
    for i, w in enumerate(words):
        if not _is_number(w):
            continue
        value = normalize(w.surface, w.kind)
        if i > 0 and words[i - 1].surface in _CURRENCY_PREFIX:
            out.add((value, _CURRENCY_PREFIX[words[i - 1].surface]))
        if i + 1 < len(words):
            unit = _unit(words[i + 1])
            if unit is not None:
                out.add((value, unit))
    return out


def is_year(n: str) -> bool:
    return n.isdigit() and len(n) == 4 and 1000 <= int(n) <= 2200


def number_conflict(claim: str, evidence: str) -> str | None:
    """The claim states a number/year the evidence does not, while the evidence states another."""
    claimed, stated = numbers(claim), numbers(evidence)
    missing = sorted(claimed - stated)
    if not missing or not stated:
        return None
    # A missing year conflicts with a year in the evidence; any other missing
    # number with any other number (a year is not a quantity and vice versa).
    for n in missing:
        same_kind = sorted(x for x in stated if is_year(x) == is_year(n))
        if same_kind:
            what = "date" if is_year(n) else "number"
            return (
                f"{what} mismatch: the answer says {n} but the context says {', '.join(same_kind)}"
            )
    return None


_MONTH_ABBREVIATIONS = frozenset(
    {"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"}
)


def date_conflict(claim: str, evidence: str) -> str | None:
    claimed, stated = months(claim), months(evidence)
    if claimed and stated and not claimed & stated:
        names = {v: k.capitalize() for k, v in MONTHS.items() if k not in _MONTH_ABBREVIATIONS}
        said = ", ".join(names.get(m, m) for m in sorted(claimed))
        ctx = ", ".join(names.get(m, m) for m in sorted(stated))
        return f"date mismatch: the answer says {said} but the context says {ctx}"
    return None


def unit_conflict(claim: str, evidence: str) -> str | None:
    """Same number, different unit or scale ("5 km" vs "5 miles", "3 million" vs "3 billion")."""
    stated = quantities(evidence)
    for value, unit in sorted(quantities(claim)):
        other = sorted(u for v, u in stated if v == value and u != unit)
        if other and (value, unit) not in stated:
            return f"unit mismatch: the answer says {value} {unit} but the context says {value} {other[0]}"
    return None


def negation_conflict(claim: str, evidence: str, overlap: float) -> str | None:
    """Polarity differs while the content largely matches (overlap ≥ 0.6)."""
    if overlap < 0.6:
        return None
    claim_neg = bool(NEGATION_RE.search(claim))
    evidence_neg = bool(NEGATION_RE.search(evidence))
    if claim_neg == evidence_neg:
        return None
    if claim_neg:
        return "negation flip: the answer negates what the context states"
    return "negation flip: the answer affirms what the context negates"


def proper_nouns(text: str) -> list[Word]:
    """Capitalised words that are not sentence-initial."""
    words = tokenize(text)
    out = []
    for i, w in enumerate(words):
        if w.kind != "word" or not w.surface[:1].isupper():
            continue
        if i == 0 or (words[i - 1].kind == "symbol" and words[i - 1].surface in '.!?:"“'):
            continue
        out.append(w)
    return out


def entity_conflict(span: tuple[int, int], claim: str, evidence: str, overlap: float) -> str | None:
    """The span (offsets into `claim`) names an entity absent from the evidence, where the
    evidence names another entity the answer does not mention, and the rest of the sentence
    matches (overlap ≥ 0.5). Capitalised sentence-initial words are not taken as names."""
    if overlap < 0.5:
        return None
    evidence_keys = {w.norm for w in tokenize(evidence)}
    claim_keys = {w.norm for w in tokenize(claim)}
    foreign = [
        w.surface
        for w in proper_nouns(claim)
        if w.start < span[1] and w.end > span[0] and w.norm not in evidence_keys
    ]
    if not foreign:
        return None
    theirs = [w.surface for w in proper_nouns(evidence) if w.norm not in claim_keys]
    if not theirs:
        return None
    return (
        f"entity mismatch: the answer names {' '.join(foreign)} "
        f"where the context names {' '.join(dict.fromkeys(theirs))}"
    )
