"""What each negation negates: the polarity of the same predicate on both sides.

The regex flip check (`negations.sentence_findings`) asks whether an answer clause
and its context clause each hold a negation word at all. "Any weeks you don't use are
paid out" against "Unused leave cannot be carried over or paid out" holds one on each
side and still flips the fact: the answer's negation is on "use", the context's on
"paid". This check parses each answer clause and the one context clause it is aligned
with (sharing most content words; see `roles`), with the same spaCy pipeline as `roles`,
and reads the polarity of every predicate (verb, adjective, a copula's complement):

* negated by a `neg` child ("is not covered", "decided not to extend", "never opens");
* negated by a negative subject or object ("no further follow-up is needed", "nothing
  was refunded");
* negated as a `conj` of a negated predicate with no auxiliary or subject of its own
  ("cannot be carried over or paid out" negates "paid");
* a copula's complement negated with the copula ("isn't a green tariff").

A predicate lemma both clauses state, with one polarity throughout each and opposite
polarities between them, is a `negation` conflict on the answer's predicate (from its
auxiliary or negation word). Not compared: a predicate inside a condition ("if you
haven't paid"), under a word that negates by itself ("unable to", "refused to") or an
instruction to check ("make sure it is not"), inside a fixed phrase ("no later than",
"not only"), a bound ("not more than"), and clauses of structured (JSON, key: value)
passages. Without spaCy or its model the check does nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from ..text.sentences import clause_spans, states_something
from ..text.words import content_keys
from .findings import Finding
from .roles import _nlp, _parse

#: The aligned context clause must share this share of the answer clause's content
#: words (relative to the shorter clause), and at least `MIN_SHARED` of them.
ALIGNMENT = 0.5
MIN_SHARED = 2
_PREDICATE = frozenset({"VERB", "ADJ"})
#: Dependencies of a predicate that states something: not "running water", "a covered
#: reason" (an attribute), nor a compound.
_CLAUSAL = frozenset(
    {"ROOT", "conj", "xcomp", "ccomp", "advcl", "relcl", "acomp", "attr", "pcomp", "csubj",
     "csubjpass", "parataxis", "oprd"}
)  # fmt: skip
#: Lemmas too light to carry a claim of their own.
_LIGHT = frozenset({"be", "have", "do", "get", "say", "go", "make", "let", "seem"})
_NEGATIVE_ARGUMENT = frozenset({"nothing", "nobody", "none", "noone", "neither"})
_ARGUMENT = frozenset({"nsubj", "nsubjpass", "dobj", "attr"})
_OWN = frozenset({"nsubj", "nsubjpass", "aux", "auxpass", "neg", "expl"})
_CONDITION_MARK = frozenset(
    {"if", "unless", "when", "whenever", "because", "since", "as", "once", "until", "whether"}
)
#: Heads that negate or suspend what they govern ("unable to attend", "make sure it
#: is not"): a predicate under one is not compared.
_SUSPENDING = frozenset(
    {"unable", "refuse", "fail", "decline", "deny", "avoid", "prevent", "stop", "lack",
     "exclude", "prohibit", "forbid", "ban", "check", "ensure", "verify", "confirm", "sure",
     "doubt", "without", "except", "instead", "rather", "unless", "than", "whether",
     "ask", "wonder"}
)  # fmt: skip
_TIME_BOUND = frozenset({"for", "until", "till", "before"})
#: After a negation, words that make it a fixed phrase or a bound: "not only", "no
#: matter", "not over 10", and before "than" ("no later than", "not more than").
_IDIOM_NEXT = frozenset(
    {"only", "matter", "doubt", "but", "over", "above", "below", "under", "beyond",
     "exceed", "exceeding", "least"}
)  # fmt: skip
_BEFORE_THAN = frozenset(
    {"later", "earlier", "sooner", "more", "less", "fewer", "longer", "shorter"}
)
#: A predicate with a comparative bound ("arrive more than 30 minutes after", "use for
#: up to ten days") is a limit, which a negation on the other side may restate.
_BOUND = re.compile(
    r"\b(?:(?:more|less|fewer|longer|shorter|later|earlier|sooner)\s+than|over|beyond|above|"
    r"below|under|up\s+to|at\s+(?:least|most)|maximum|minimum|exceed\w*)\b",
    re.IGNORECASE,
)


def _negative_argument(tok: Any) -> bool:
    if tok.lower_ in _NEGATIVE_ARGUMENT:
        return True
    return any(c.dep_ == "det" and c.lower_ == "no" for c in tok.children)


def _neg_child(tok: Any) -> Any | None:
    for c in tok.children:
        if c.dep_ == "neg" and not _idiomatic(c):
            return c
        if c.dep_ == "advmod" and c.lower_ in ("longer", "more"):  # "no longer maintained"
            no = next((d for d in c.children if d.lower_ == "no"), None)
            if no is not None and not _idiomatic(no):
                return no
    return None


def _idiomatic(neg: Any) -> bool:
    """A negation inside a fixed phrase or a bound ("no later than", "not only", "not
    more than"), or a contrast after a clause (", not by us")."""
    doc = neg.doc
    nxt = doc[neg.i + 1] if neg.i + 1 < len(doc) else None
    after = doc[neg.i + 2] if neg.i + 2 < len(doc) else None
    if nxt is not None and nxt.lower_ in _IDIOM_NEXT:
        return True
    if (
        nxt is not None
        and nxt.lower_ in _BEFORE_THAN
        and after is not None
        and after.lower_ == "than"
    ):
        return True
    prev = doc[neg.i - 1] if neg.i > 0 else None
    # a contrast after a clause (", not an employee", "but not against the marks")
    return (
        prev is not None
        and prev.lower_ in (",", "but", "and", "or", ";")
        and nxt is not None
        and nxt.pos_ not in ("VERB", "AUX", "ADJ", "ADV")
    )


def _negation_of(tok: Any, depth: int = 0) -> Any | None:
    """The token that negates predicate `tok` (its negation word, or its negative
    argument), or None when `tok` is affirmed."""
    neg = _neg_child(tok)
    if neg is not None:
        return neg
    for c in tok.children:
        if c.dep_ in _ARGUMENT and _negative_argument(c):
            return c
    head = tok.head
    if tok.dep_ in ("acomp", "attr") and head.lemma_ == "be":
        return _neg_child(head)
    if (
        depth < 3
        and tok.dep_ == "conj"
        and head.i != tok.i
        and not any(c.dep_ in _OWN for c in tok.children)
    ):
        return _negation_of(head, depth + 1)
    return None


def _suspended(tok: Any) -> bool:
    """Whether `tok` sits in a condition, or under a word that negates or suspends it."""
    node = tok
    while True:
        marks = {c.lower_ for c in node.children if c.dep_ == "mark"}
        if node.dep_ == "advcl" and marks & _CONDITION_MARK:
            return True
        if marks & {"if", "unless", "whether"}:
            return True
        if node.head.i == node.i:
            return False
        node = node.head
        if node.lemma_.casefold() in _SUSPENDING or node.lower_ in _SUSPENDING:
            return True


def _bounded(tok: Any) -> bool:
    right = [t for c in tok.rights if c.dep_ not in _CLAUSAL for t in c.subtree]
    return bool(right) and _BOUND.search(" ".join(t.text for t in right)) is not None


def _split(tok: Any) -> bool:
    """Whether a conjunct that is no predicate carries a negation of its own ("charge
    indoors and never below freezing"): the polarity belongs to part of the predicate."""
    return any(
        c.dep_ == "conj" and c.pos_ not in _PREDICATE and _neg_child(c) is not None
        for c in tok.children
    )


def _under_negation(tok: Any) -> bool:
    """Whether a head above `tok` (other than the one it shares as a conjunct) is
    negated: "aren't allowed to work", "did not intend to appeal" say nothing plain
    about "work" or "appeal"."""
    node = tok
    while node.head.i != node.i:
        dep = node.dep_
        node = node.head
        if dep != "conj" and _neg_child(node) is not None:
            return True
    return False


def _predicates(doc: Any) -> dict[str, list[tuple[bool, Any, Any | None]]]:
    """Predicate lemma -> (negated, predicate token, negation token) for each use."""
    out: dict[str, list[tuple[bool, Any, Any | None]]] = {}
    for tok in doc:
        attr = tok.dep_ in ("acomp", "attr") and tok.head.lemma_ == "be"
        if tok.pos_ not in _PREDICATE and not attr:
            continue
        lemma = tok.lemma_.casefold()
        if lemma in _LIGHT or lemma in _SUSPENDING or not lemma.isalpha():
            continue
        if tok.dep_ not in _CLAUSAL or _suspended(tok) or _under_negation(tok):
            continue
        if _bounded(tok) or _split(tok):
            continue
        neg = _negation_of(tok)
        out.setdefault(lemma, []).append((neg is not None, tok, neg))
    return out


def _preps(tok: Any) -> set[str]:
    return {c.lower_ for c in tok.children if c.dep_ == "prep"}


def _delayed(negated: Any, affirmed: Any) -> bool:
    """A negated predicate held for a time ("not erased for 30 days") says what the
    affirmed one after it ("erased after 30 days") says."""
    return bool(_preps(negated) & _TIME_BOUND) and "after" in _preps(affirmed)


def _aligned(
    keys: set[str], clauses: list[tuple[int, int, int, set[str]]]
) -> tuple[int, int, int] | None:
    """The context clause sharing most content words with the answer clause's `keys`,
    among those sharing at least `ALIGNMENT` of the shorter clause's words."""
    best, where = (0, 0.0), None
    for i, s, e, theirs in clauses:
        shared = len(keys & theirs)
        if shared < MIN_SHARED or not theirs:
            continue
        share = shared / min(len(keys), len(theirs))
        if share >= ALIGNMENT and (shared, share) > best:
            best, where = (shared, share), (i, s, e)
    return where


def _structured(passage: str) -> bool:
    stripped = passage.lstrip()
    return stripped.startswith(("{", "[")) or stripped.count('":') >= 2


def _span(tok: Any, neg: Any | None) -> tuple[int, int]:
    """Characters of the predicate with its auxiliaries and negation word."""
    parts = [tok] + [c for c in tok.children if c.dep_ in ("aux", "auxpass", "neg") and c.i < tok.i]
    if neg is not None and neg.i < tok.i and neg.head is tok:
        parts.append(neg)
    start = min(p.idx for p in parts)
    return start, tok.idx + len(tok.text)


def polarity_findings(
    context: Sequence[str],
    answer: str,
    skip: Sequence[tuple[int, int]] = (),
    excused: Callable[[str, str], bool] | None = None,
) -> list[Finding]:
    """A `conflict` for each predicate the answer states with the polarity opposite to
    its aligned context clause's (see the module doc). Clauses overlapping a span of
    `skip` (already judged a flip) are left alone, and so are pairs of answer and
    context clause that `excused` accepts (a condition, a bound, a word that negates)."""
    nlp = _nlp()
    if nlp is None:
        return []
    clauses = [
        (i, s, e, content_keys(p[s:e]))
        for i, p in enumerate(context)
        if not _structured(p)
        for s, e in clause_spans(p)
        if states_something(p[s:e])
    ]
    out: list[Finding] = []
    for s, e in clause_spans(answer):
        if any(a < e and s < b for a, b in skip):
            continue
        text = answer[s:e]
        where = _aligned(content_keys(text), clauses)
        if where is None:
            continue
        i, cs, ce = where
        if excused is not None and excused(text, context[i][cs:ce]):
            continue
        ours = _predicates(_parse(nlp, text))
        theirs = _predicates(_parse(nlp, context[i][cs:ce]))
        for lemma, uses in ours.items():
            rivals = theirs.get(lemma)
            if not rivals:
                continue
            mine = {n for n, _, _ in uses}
            other = {n for n, _, _ in rivals}
            if len(mine) != 1 or len(other) != 1 or mine == other:
                continue
            negated, tok, neg = uses[0]
            if _delayed(uses[0][1] if negated else rivals[0][1], rivals[0][1] if negated else tok):
                continue
            a, b = _span(tok, neg)
            said = "negates" if negated else "affirms"
            reason = (
                f"negation flip: the answer {said} '{tok.text}' where the context "
                f"{'affirms' if negated else 'negates'} it"
            )
            out.append(Finding(s + a, s + b, "negation", "conflict", (i, cs, ce), reason))
    return out
