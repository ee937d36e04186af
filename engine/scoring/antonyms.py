"""Opposite words: the lexicon behind the antonym check of `negations.sentence_findings`.

Two kinds of entries, both compared by `words.stem`, so that inflections meet ("expanded"
and "contracted", "rejects" and "upheld"):

* **Directions**: every word of a change upwards ("rose", "expanded", "widened",
  "improved") is the opposite of every word of a change downwards ("fell",
  "contracted", "narrowed", "worsened"). A clause that says "margin expanded by 120
  basis points" where its aligned context clause says "contracted by 120 basis points"
  states the opposite change, whichever verbs the two chose.
* **Pairs**: words whose opposites are fixed ("approved"/"rejected", "upheld"/
  "dismissed", "enabled"/"disabled", "inbound"/"outbound").

A word counts as contradicted only when the aligned context clause holds an opposite about
the same thing (the nearest content word before or after the two is the same: "gross
margin *expanded*" and "gross margin *contracted*", "*upheld* his separate claim" and
"*rejected* his separate claim") and none of the word's own group: "sales rose while costs fell" names both directions and
settles nothing about either. Irregular forms are listed, since the stemmer only strips
regular suffixes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..text.words import STOPWORDS, stem

UP = frozenset(
    {"increase", "increased", "rise", "rose", "risen", "rising", "grow", "grew", "grown",
     "growth", "climb", "climbed", "gain", "gained", "expand", "expanded", "expansion",
     "jump", "jumped", "surge", "surged", "soar", "soared", "widen", "widened",
     "accelerate", "accelerated", "strengthen", "strengthened", "improve", "improved",
     "improvement", "boost", "boosted", "raise", "raised", "upgrade", "upgraded"}
)  # fmt: skip
DOWN = frozenset(
    {"decrease", "decreased", "fall", "fell", "fallen", "falling", "drop", "dropped",
     "decline", "declined", "shrink", "shrank", "shrunk", "contract", "contracted",
     "contraction", "slip", "slipped", "slide", "slid", "plunge", "plunged", "tumble",
     "tumbled", "narrow", "narrowed", "weaken", "weakened", "worsen", "worsened",
     "deteriorate", "deteriorated", "reduce", "reduced", "reduction", "cut", "lower",
     "lowered", "downgrade", "downgraded"}
)  # fmt: skip
PAIRS = (
    ("before", "after"), ("largest", "smallest"), ("highest", "lowest"), ("higher", "lower"),
    ("more", "less"), ("most", "least"), ("north", "south"), ("east", "west"),
    ("won", "lost"), ("win", "lose"), ("open", "closed"), ("opened", "closed"),
    ("allowed", "prohibited"), ("allowed", "forbidden"), ("permitted", "prohibited"),
    ("accepted", "rejected"), ("accepted", "declined"), ("approved", "rejected"),
    ("approved", "declined"), ("approved", "denied"), ("granted", "denied"),
    ("granted", "refused"), ("upheld", "rejected"), ("upheld", "dismissed"),
    ("upheld", "overturned"), ("convicted", "acquitted"), ("included", "excluded"),
    ("minimum", "maximum"), ("first", "last"), ("early", "late"), ("earlier", "later"),
    ("earliest", "latest"), ("above", "below"), ("gain", "loss"), ("profit", "loss"),
    ("surplus", "deficit"), ("positive", "negative"), ("available", "unavailable"),
    ("mandatory", "optional"), ("required", "optional"), ("compulsory", "optional"),
    ("public", "private"), ("cheaper", "more expensive"), ("older", "younger"),
    ("larger", "smaller"), ("bigger", "smaller"), ("wider", "narrower"),
    ("faster", "slower"), ("longer", "shorter"), ("heavier", "lighter"), ("better", "worse"),
    ("best", "worst"), ("stronger", "weaker"), ("succeeded", "failed"),
    ("successful", "unsuccessful"), ("enabled", "disabled"),
    ("active", "inactive"), ("valid", "invalid"), ("eligible", "ineligible"),
    ("legal", "illegal"), ("paid", "unpaid"), ("confirmed", "cancelled"),
    ("confirmed", "unconfirmed"), ("hired", "fired"), ("added", "removed"),
    ("inbound", "outbound"),
    ("import", "export"), ("buy", "sell"), ("bought", "sold"), ("buyer", "seller"),
    ("credit", "debit"), ("deposit", "withdrawal"), ("internal", "external"),
    ("temporary", "permanent"), ("domestic", "international"), ("indoor", "outdoor"),
    ("online", "offline"), ("overpaid", "underpaid"), ("overestimate", "underestimate"),
    ("ascending", "descending"), ("upstream", "downstream"),
    ("supported", "opposed"), ("majority", "minority"),
)  # fmt: skip


def _opposites() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    up = {stem(w) for w in UP}
    down = {stem(w) for w in DOWN}
    for w in up:
        table.setdefault(w, set()).update(down)
    for w in down:
        table.setdefault(w, set()).update(up)
    for a, b in PAIRS:
        if " " in a or " " in b:
            continue  # one word at a time; "more expensive" is compared as "cheaper" only
        table.setdefault(stem(a), set()).add(stem(b))
        table.setdefault(stem(b), set()).add(stem(a))
    return {w: frozenset(o) for w, o in table.items()}


def _groups() -> dict[str, frozenset[str]]:
    """A word's own side: every direction word for a direction word, itself otherwise."""
    up = frozenset(stem(w) for w in UP)
    down = frozenset(stem(w) for w in DOWN)
    return {w: up for w in up} | {w: down for w in down}


_OPPOSITE = _opposites()
_SIDE = _groups()


def opposite_in(word: str, their_words: Iterable[str]) -> str | None:
    """The stem among `their_words` (stems of a context clause) that is the opposite
    of `word`, when that clause holds no word of `word`'s own side; else None."""
    key = stem(word.lower())
    opposites = _OPPOSITE.get(key)
    if not opposites:
        return None
    theirs = set(their_words)
    if theirs & _SIDE.get(key, frozenset({key})):
        return None
    found = sorted(theirs & opposites)
    return found[0] if found else None


_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d[\d.,]*")


def _neighbours(text: str, start: int, end: int) -> set[str]:
    """Stems of the nearest content word before and after `text[start:end]`."""
    words = [(m.start(), m.group().lower()) for m in _WORD.finditer(text)]
    content = [(p, w) for p, w in words if w not in STOPWORDS and len(w) > 1]
    before = [w for p, w in content if p < start]
    after = [w for p, w in content if p >= end]
    return {stem(w) for w in before[-1:] + after[:1]}


def about_the_same(sentence: str, start: int, end: int, evidence: str, opposite: str) -> bool:
    """Whether some occurrence of `opposite` (a stem) in `evidence` has a content
    neighbour that the answer's word at `sentence[start:end]` also has."""
    ours = _neighbours(sentence, start, end)
    for m in _WORD.finditer(evidence):
        if stem(m.group().lower()) == opposite and ours & _neighbours(evidence, m.start(), m.end()):
            return True
    return False
