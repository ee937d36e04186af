"""A name swapped into another entity's sentence.

"Snowflake access is owned by Alicia Ferreira", where the context says "questions about
Snowflake access go to Tomasz Zielinski" and mentions Alicia Ferreira only as the BI
guild's coordinator, keeps every word of the context and changes who is responsible.
`roles` catches such a swap when both clauses use the same verb; this check does not
need the same verb, only the same sentence:

* for each name the answer uses that the context uses too (spaCy's entities of
  `NAME_LABELS`, not an acronym, not a code), the rest of the answer's clause (its
  content words without the names) is aligned with the context sentence that shares
  most of them (at least `MIN_SHARED` words and `MIN_SHARE` of the clause's);
* when that sentence does not mention the answer's name but names another entity that
  the answer's clause does not name either, refers to no one by a pronoun (it may be
  about the answer's entity), and no sentence that does mention the answer's name
  shares as many words with the clause, the name is a `conflict` with that sentence as
  evidence.

Only the answer and the one aligned context sentence are parsed, never whole contexts.
Without spaCy or its model the check does nothing (`roles.available()` says so).
On the seventeen customer-style development sets, beside what `roles` finds (docs/detection.md), it fires on 18 of 505 wrong answers (15 of them on the labelled
name) and on 1 of 505 faithful ones.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..text.sentences import clause_spans, split_sentences
from ..text.words import content_keys
from .findings import Finding
from .roles import _nlp, _parse

NAME_LABELS = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC"})
#: The aligned sentence must share this many of the clause's content words, and this
#: share of them.
MIN_SHARED = 2
MIN_SHARE = 0.4
_WORD = re.compile(r"[A-Za-z][\w'’-]+")
_CAPITALISED = re.compile(r"\b[A-Z][\w'’-]*")
_ACRONYM = re.compile(r"[A-Z]{2,5}s?")
#: A sentence that refers to someone by a pronoun may be about the answer's entity, which
#: the check cannot resolve ("In 2016, she appeared in ..."). On SummEdits (training data,
#: 400 rows a domain) this took the check's fires on consistent summaries from 32 to 2,
#: and on entity-swapped ones from 29 to 4; on the customer-style sets from 16 to 15.
_PRONOUN = re.compile(r"\b(?:he|she|his|her|him|they|their|them)\b", re.IGNORECASE)


def _name_like(text: str) -> bool:
    """An entity that reads as a name: capitalised, no digits or underscores (codes and
    JSON keys), not a bare acronym ("RAM", "TLS")."""
    text = text.strip()
    return (
        len(text) > 2
        and text[0].isupper()
        and not re.search(r"[_\d]", text)
        and not _ACRONYM.fullmatch(text)
    )


#: Entity labels of places: "in Norway" says where, not who.
_PLACES = frozenset({"GPE", "LOC", "FAC"})
#: A JSON record's field.
_JSON = re.compile(r"\"\s*:")
_ARTICLE = re.compile(r"(?:the|a|an)\s+", re.IGNORECASE)


def _adjuncts(doc: Any) -> list[tuple[int, int]]:
    """Where the places of `doc` that say where something happens begin ("deliveries in
    Norway", "landlords in England"): a setting, not an entity that could be swapped."""
    return [
        (e.start_char, e.end_char)
        for e in doc.ents
        if e.label_ in _PLACES
        and e.root.dep_ == "pobj"
        and e.root.head.lower_ in ("in", "at", "across", "throughout", "within")
    ]


def _names(doc: Any) -> list[tuple[str, int, int]]:
    """(text, start, end) of the names in `doc`, without a leading article."""
    out = []
    for e in doc.ents:
        if e.label_ not in NAME_LABELS:
            continue
        article = _ARTICLE.match(e.text)
        cut = article.end() if article else 0
        text = e.text[cut:]
        if _name_like(text):
            out.append((text, e.start_char + cut, e.end_char))
    return out


def _words(name: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(name)}


def _mentions(name: str, text: str) -> bool:
    """Whether `text` uses any word of `name` (a first name alone counts)."""
    return any(re.search(rf"\b{re.escape(w)}\b", text, re.IGNORECASE) for w in _words(name))


def _table_header(text: str, start: int) -> bool:
    """A word that opens a table cell or a line: a column header, not an entity."""
    before = text[:start]
    return before.rstrip().endswith("|") or before.endswith("\n")


def name_swap_findings(
    context: Sequence[str], answer: str, found: Sequence[Finding] = ()
) -> list[Finding]:
    """A `conflict` for each name of the answer whose clause is aligned with a context
    sentence about another entity (see the module doc). Names already judged by another
    finding (`found`) are left alone."""
    nlp = _nlp()
    if nlp is None or not context:
        return []
    everywhere = "\n".join(context)
    answer_doc = _parse(nlp, answer)
    names = _names(answer_doc)
    settings = _adjuncts(answer_doc)
    if not names:
        return []
    sentences = [
        (i, p.start, p.end, p.text)
        for i, passage in enumerate(context)
        for p in split_sentences(passage)
    ]
    # Content words of each context sentence, without its capitalised words: names
    # must not align a clause with the sentence that merely names the same people.
    keyed = [
        content_keys(text) - content_keys(" ".join(_CAPITALISED.findall(text)))
        for *_, text in sentences
    ]
    clauses = clause_spans(answer)
    out: list[Finding] = []
    for written, a, b in names:
        if any(f.start < b and a < f.end for f in found):
            continue
        if not _mentions(written, everywhere):
            continue  # a name the context never uses is the detector's to flag
        clause = next(((s, e) for s, e in clauses if s <= a < e), None)
        if clause is None:
            continue
        s, e = clause
        text = answer[s:e]
        inside = [n for n, x, y in names if s <= x and y <= e]
        keys = content_keys(text) - content_keys(" ".join(inside))
        if not keys:
            continue
        shared = [len(keys & theirs) for theirs in keyed]
        best = max(range(len(sentences)), key=shared.__getitem__)
        if shared[best] < MIN_SHARED or shared[best] / len(keys) < MIN_SHARE:
            continue
        i, cs, ce, evidence = sentences[best]
        if _PRONOUN.search(evidence):
            continue  # "she appeared in ...": the sentence may be about the answer's name
        if _JSON.search(evidence):
            continue  # a JSON record: `fields` reads those
        parsed = _parse(nlp, evidence)
        if "|" not in evidence and not any(t.pos_ in ("VERB", "AUX") for t in parsed):
            continue  # a title or heading ("Southern Counties League — table after 22 rounds")
        if _mentions(written, evidence):
            continue
        own = [shared[k] for k, sent in enumerate(sentences) if _mentions(written, sent[3])]
        if own and max(own) >= shared[best]:
            continue  # a sentence about this name fits the clause as well
        # a setting is a rival only to a setting ("seated in Munich" for "in Dublin")
        setting = any(lo <= a < hi for lo, hi in settings)
        where = [] if setting else _adjuncts(parsed)
        rivals = [
            n
            for n, x, _ in _names(parsed)
            if (len(n.split()) > 1 or not _table_header(evidence, x))
            and not _mentions(n, text)
            and not any(lo <= x < hi for lo, hi in where)
        ]
        if not rivals:
            continue
        reason = (
            f"wrong name: the context says this of {rivals[0]}, and mentions {written} elsewhere"
        )
        out.append(Finding(a, b, "role", "conflict", (i, cs, ce), reason))
    return out
