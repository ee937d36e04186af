"""FactCC-style perturbations that turn a faithful answer into a hallucinated one.

Each perturbation takes the answer text and a random generator and returns
`Edit(text, start, end, kind)` where `text[start:end]` is the inserted or
changed material (the hallucinated span), or `None` when it does not apply
to this answer. All choices go through the given `random.Random`, so the
training data is a pure function of the seed.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Edit:
    """The new text; `[start, end)` is the new material, which replaced `old[start:old_end]`."""

    text: str
    start: int
    end: int
    kind: str
    old_end: int


_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\w)|(?<![\w.])\d+(?:\.\d+)?(?!\w)")
_CAPITALISED = re.compile(r"\b[A-Z][a-zA-Z'\-]+(?:\s+(?:of\s+|the\s+|de\s+)?[A-Z][a-zA-Z'\-]+)*")
_NEGATABLE = re.compile(
    r"\b(is|was|are|were|can|could|will|would|has|have|had|does|did|should|must)\b(?! not\b)",
    re.IGNORECASE,
)
_NEGATED = re.compile(r"\b(is|was|are|were|can|could|will|would|has|have|had|does|did)( not|n't)\b")
_NUMBER_WORDS = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve"]
_MONTHS = [
    "January", "February", "March", "April", "May", "June", "July",
    "August", "September", "October", "November", "December",
]  # fmt: skip
_SCALES = ["hundred", "thousand", "million", "billion"]
_UNITS = [("km", "miles"), ("kilometres", "miles"), ("meters", "feet"), ("kg", "pounds"),
          ("percent", "times"), ("years", "decades"), ("days", "weeks"), ("hours", "minutes")]  # fmt: skip
_ANTONYMS = [
    ("first", "last"),
    ("largest", "smallest"),
    ("biggest", "smallest"),
    ("before", "after"),
    ("increase", "decrease"),
    ("increased", "decreased"),
    ("north", "south"),
    ("east", "west"),
    ("older", "younger"),
    ("oldest", "youngest"),
    ("more", "less"),
    ("higher", "lower"),
    ("highest", "lowest"),
    ("won", "lost"),
    ("male", "female"),
    ("early", "late"),
    ("earlier", "later"),
    ("best", "worst"),
    ("positive", "negative"),
    ("popular", "unpopular"),
    ("successful", "unsuccessful"),
    ("large", "small"),
    ("long", "short"),
    ("major", "minor"),
    ("public", "private"),
    ("ancient", "modern"),
    ("northern", "southern"),
    ("eastern", "western"),
    ("inside", "outside"),
    ("above", "below"),
    ("always", "never"),
    ("many", "few"),
    ("cheap", "expensive"),
    ("hot", "cold"),
    ("fast", "slow"),
    ("strong", "weak"),
    ("rich", "poor"),
    ("legal", "illegal"),
    ("husband", "wife"),
    ("father", "mother"),
    ("son", "daughter"),
    ("brother", "sister"),
    ("comedy", "drama"),
]
_ANTONYM = {a: b for a, b in _ANTONYMS} | {b: a for a, b in _ANTONYMS}
_ANTONYM_RE = re.compile(r"\b(" + "|".join(sorted(_ANTONYM, key=len, reverse=True)) + r")\b", re.I)
_SCALE_RE = re.compile(r"\b(" + "|".join(_SCALES) + r")\b", re.I)
_MONTH_RE = re.compile(r"\b(" + "|".join(_MONTHS) + r")\b")
_NUMWORD_RE = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.I)
_UNIT = {a: b for a, b in _UNITS} | {b: a for a, b in _UNITS}
_UNIT_RE = re.compile(r"\b(" + "|".join(sorted(_UNIT, key=len, reverse=True)) + r")\b")


def _match_case(word: str, template: str) -> str:
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _replace(text: str, start: int, end: int, new: str, kind: str) -> Edit:
    return Edit(text[:start] + new + text[end:], start, start + len(new), kind, end)


def _changed_number(token: str, rng: random.Random) -> str:
    plain = token.replace(",", "")
    if "." in plain:
        value = float(plain)
        new = round(value * rng.choice([0.5, 0.7, 1.3, 1.5, 2.0]) + rng.choice([0.1, 0.5, 1]), 1)
        return str(new) if new != value else str(value + 1)
    value = int(plain)
    if 1000 <= value <= 2100:  # a year: nearby but wrong
        return str(value + rng.choice([-12, -7, -3, -2, -1, 1, 2, 3, 5, 10]))
    if value < 10:
        return str(value + rng.choice([1, 2, 3]))
    new = int(value * rng.choice([0.5, 0.6, 1.5, 2, 3])) + rng.randint(1, 9)
    return f"{new:,}" if "," in token else str(new)


def number_change(text: str, rng: random.Random, **_: object) -> Edit | None:
    found = list(_NUMBER.finditer(text))
    if found:
        m = rng.choice(found)
        return _replace(text, m.start(), m.end(), _changed_number(m.group(), rng), "number")
    words = list(_NUMWORD_RE.finditer(text))
    if words:
        m = rng.choice(words)
        new = rng.choice([w for w in _NUMBER_WORDS if w != m.group().lower()])
        return _replace(text, m.start(), m.end(), _match_case(new, m.group()), "number")
    return None


def date_unit_change(text: str, rng: random.Random, **_: object) -> Edit | None:
    options: list[tuple[re.Match[str], list[str]]] = []
    options += [(m, [x for x in _MONTHS if x != m.group()]) for m in _MONTH_RE.finditer(text)]
    options += [
        (m, [x for x in _SCALES if x != m.group().lower()]) for m in _SCALE_RE.finditer(text)
    ]
    options += [(m, [_UNIT[m.group()]]) for m in _UNIT_RE.finditer(text)]
    if not options:
        return None
    m, choices = rng.choice(options)
    return _replace(text, m.start(), m.end(), _match_case(rng.choice(choices), m.group()), "unit")


def negation(text: str, rng: random.Random, **_: object) -> Edit | None:
    negated = list(_NEGATED.finditer(text))
    if negated and rng.random() < 0.5:
        m = rng.choice(negated)
        return _replace(text, m.start(), m.end(), m.group(1), "negation")
    plain = list(_NEGATABLE.finditer(text))
    if not plain:
        return None
    m = rng.choice(plain)
    return _replace(text, m.start(), m.end(), m.group() + " not", "negation")


def antonym_swap(text: str, rng: random.Random, **_: object) -> Edit | None:
    found = list(_ANTONYM_RE.finditer(text))
    if not found:
        return None
    m = rng.choice(found)
    return _replace(
        text, m.start(), m.end(), _match_case(_ANTONYM[m.group().lower()], m.group()), "antonym"
    )


def entity_swap(
    text: str, rng: random.Random, entity_pool: Sequence[str] = (), **_: object
) -> Edit | None:
    """Replace a capitalised phrase with another one (from this or another context)."""
    # Skip sentence-initial single words: "The", "It" are capitalised, not entities.
    found = [
        m
        for m in _CAPITALISED.finditer(text)
        if " " in m.group()
        or (m.start() > 0 and text[max(0, m.start() - 2) : m.start()].strip() not in ".!?")
    ]
    candidates = [e for e in entity_pool if e not in text]
    if not found or not candidates:
        return None
    m = rng.choice(found)
    return _replace(text, m.start(), m.end(), rng.choice(candidates), "entity")


def borrowed_sentence(
    text: str, rng: random.Random, foreign_sentences: Sequence[str] = (), **_: object
) -> Edit | None:
    """Insert a sentence from another context at a sentence boundary."""
    if not foreign_sentences:
        return None
    sentence = rng.choice(foreign_sentences).strip()
    boundaries = [0] + [m.end() for m in re.finditer(r"[.!?]\s+", text)] + [len(text)]
    at = rng.choice(boundaries)
    if at == len(text):
        sep = "" if not text or text.endswith(" ") else " "
        new = text + sep + sentence
        return Edit(new, len(text) + len(sep), len(new), "borrowed", len(text))
    new = text[:at] + sentence + " " + text[at:]
    return Edit(new, at, at + len(sentence), "borrowed", at)


Perturbation = Callable[..., Edit | None]

#: (perturbation, weight): contradictions (intrinsic) and unsupported additions (extrinsic).
PERTURBATIONS: list[tuple[Perturbation, float]] = [
    (entity_swap, 3.0),
    (number_change, 2.5),
    (date_unit_change, 1.0),
    (negation, 1.5),
    (antonym_swap, 1.0),
    (borrowed_sentence, 2.5),
]


def perturb(
    text: str,
    rng: random.Random,
    entity_pool: Sequence[str],
    foreign_sentences: Sequence[str],
) -> Edit | None:
    """Apply one applicable perturbation, chosen by weight; None if none applies."""
    funcs = [f for f, _ in PERTURBATIONS]
    weights = [w for _, w in PERTURBATIONS]
    order: list[Perturbation] = []
    while funcs:
        pick = rng.choices(range(len(funcs)), weights=weights)[0]
        order.append(funcs.pop(pick))
        weights.pop(pick)
    for func in order:
        edit = func(text, rng, entity_pool=entity_pool, foreign_sentences=foreign_sentences)
        if edit is not None and edit.text != text:
            return edit
    return None


def shift_spans(
    spans: list[tuple[int, int, str]], edit: Edit, old_len: int
) -> list[tuple[int, int, str]]:
    """Re-anchor earlier spans after `edit` changed the text; drop spans it overwrote."""
    delta = len(edit.text) - old_len
    kept = []
    for s, e, kind in spans:
        if e <= edit.start:
            kept.append((s, e, kind))
        elif s >= edit.old_end:
            kept.append((s + delta, e + delta, kind))
        # overlapping spans are replaced by the new one
    return kept + [(edit.start, edit.end, edit.kind)]
