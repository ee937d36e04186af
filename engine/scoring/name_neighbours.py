"""A name among another entity's words: "for Cobalt Wharf is Lena Vasquez".

`name_swaps` aligns a whole answer clause with a whole context sentence, and `roles`
needs the same verb on both sides. Neither sees a swap inside one sentence or list that
names both people ("authored by Marco Bellini and approved by release manager Aisha
Nwosu"), nor one in key-value lines ("Building manager for Harrow Point: Lena Vasquez.
Building manager for Cobalt Wharf: Idris Mensah."). What a person reads there is which
words stand next to which name. So, for each name of the answer that the context uses:

* its **neighbourhood** in the answer is the content words nearest to it (six on each
  side, within its sentence or line; the name's own words left out);
* its own neighbourhoods in the context are the same around each of its mentions, and so
  are those of every **rival**: another name of two or three capitalised words that the
  context uses and the answer never does (not a word of it);
* when some rival's neighbourhood shares at least two more of the answer's words than the
  name's own best one does (and at least two in all), the answer has put the name where
  the context has the rival: a `contradiction`, with the rival's sentence as evidence.

A rival must be the same kind of entity (a person for a person, spaCy's label on its own
sentence), so that a company's sentence that shares a budget with the answer is no rival
for the director who abstained. Only the answer and the rivals' sentences are parsed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from ..text.sentences import split_sentences
from ..text.words import STOPWORDS, stem
from .findings import Finding
from .name_swaps import _mentions, _names
from .roles import _nlp, _parse

#: Content words taken on each side of a name.
REACH = 6
#: A rival must share this many more of the answer's words than the name itself.
MARGIN = 2
MIN_SHARED = 2
_WORD = re.compile(r"[A-Za-z][\w'’-]*|\d[\d.,:]*")
_RIVAL = re.compile(r"\b[A-Z][a-z]+(?:[ -][A-Z][a-z]+){1,2}\b")

Piece = tuple[int, int]
#: spaCy's small model often calls a person an organisation and back; a place it keeps apart.
_KIND = {"PERSON": "agent", "ORG": "agent", "NORP": "agent", "GPE": "place", "LOC": "place",
         "FAC": "place"}  # fmt: skip


def _pieces(text: str) -> list[Piece]:
    """Sentences of `text`, each cut at its line breaks, as offsets."""
    out = []
    for s in split_sentences(text):
        pos = s.start
        for line in s.text.split("\n"):
            at = text.find(line, pos)
            out.append((at, at + len(line)))
            pos = at + len(line)
    return out


def _piece(pieces: list[Piece], at: int, size: int) -> Piece:
    return next(((s, e) for s, e in pieces if s <= at < e), (0, size))


def _neighbourhood(text: str, pieces: list[Piece], a: int, b: int, leave: set[str]) -> set[str]:
    s, e = _piece(pieces, a, len(text))
    words = [(s + m.start(), m.group().lower()) for m in _WORD.finditer(text[s:e])]
    content = [
        (p, w) for p, w in words if w not in STOPWORDS and len(w) > 1 and w not in leave
    ]  # fmt: skip
    before = [w for p, w in content if p < a][-REACH:]
    after = [w for p, w in content if p >= b][:REACH]
    return {stem(w) for w in before + after}


def _spots(name: str, text: str) -> list[Piece]:
    return [(m.start(), m.end()) for m in re.finditer(rf"\b{re.escape(name)}\b", text)]


def _together(
    passage: str, pieces: list[Piece], rival: Piece, own: list[tuple[int, Piece]], index: int
) -> bool:
    """Whether a mention of the name stands within `REACH` words of the rival's."""
    piece = _piece(pieces, rival[0], len(passage))
    for i, (x, y) in own:
        if i != index or _piece(pieces, x, len(passage)) != piece:
            continue
        lo, hi = min(y, rival[1]), max(x, rival[0])
        if len(_WORD.findall(passage[lo:hi])) <= REACH:
            return True
    return False


def _label(nlp: object, sentence: str, name: str) -> str | None:
    doc = _parse(nlp, sentence)
    for e in doc.ents:
        if name in e.text or e.text in name:
            return str(e.label_)
    return None


def _title(passage: str, start: int, end: int, nlp: object) -> bool:
    """Whether `passage[start:end]` is the first line of a passage that goes on below it,
    with no verb and no "key: value" ("Southern Counties League — table after 22
    rounds"): a title."""
    piece = passage[start:end]
    if passage[:start].strip() or not passage[end:].strip() or ":" in piece:
        return False
    return not any(t.pos_ in ("VERB", "AUX") for t in _parse(nlp, piece))


def name_neighbour_findings(
    context: Sequence[str], answer: str, found: Sequence[Finding] = (), query: str | None = None
) -> list[Finding]:
    """A `conflict` for each name of the answer whose neighbours the context gives
    another name (see the module doc). Names already judged (`found`) and names the
    user's `query` gives (the user's premise: "I live in Cobalt Wharf") are left alone."""
    nlp = _nlp()
    if nlp is None or not context:
        return []
    names = _names(_parse(nlp, answer))
    if not names:
        return []
    answer_doc = _parse(nlp, answer)
    labels = {(e.start_char, e.end_char): e.label_ for e in answer_doc.ents}
    answer_pieces = _pieces(answer)
    passages = [(passage, _pieces(passage)) for passage in context]
    candidates = {r for passage in context for r in _RIVAL.findall(passage)}
    spots = cache(_spots)  # each rival's mentions, found once for all the names
    out: list[Finding] = []
    for written, a, b in names:
        if any(f.start < b and a < f.end for f in found) or (query and written in query):
            continue
        own_words = {w.lower() for w in written.split()}
        own_spots = [(i, spot) for i, (p, _) in enumerate(passages) for spot in _spots(written, p)]
        if not own_spots:
            continue
        ours = _neighbourhood(answer, answer_pieces, a, b, own_words)
        own = max(
            len(ours & _neighbourhood(passages[i][0], passages[i][1], x, y, own_words))
            for i, (x, y) in own_spots
        )
        best: tuple[int, str, int, Piece] | None = None
        for rival in sorted(candidates):
            rival_words = {w.lower() for w in rival.split()}
            if rival == written or rival_words & own_words or _mentions(rival, answer):
                continue
            for i, (passage, pieces) in enumerate(passages):
                for x, y in spots(rival, passage):
                    if _together(passage, pieces, (x, y), own_spots, i):
                        continue  # "Riverside goalkeeper Ali Demir": one says the other
                    shared = len(
                        ours & _neighbourhood(passage, pieces, x, y, own_words | rival_words)
                    )
                    if best is None or shared > best[0]:
                        best = (shared, rival, i, _piece(pieces, x, len(passage)))
        if best is None or best[0] < MIN_SHARED or best[0] < own + MARGIN:
            continue
        shared, rival, i, (cs, ce) = best
        label = labels.get((a, b)) or next(
            (lab for (x, y), lab in labels.items() if x <= a and b <= y), None
        )
        if _title(context[i], cs, ce, nlp):
            continue  # the name of the table or list below, not an entity in it
        theirs = _label(nlp, context[i][cs:ce], rival)
        if theirs is None or (label is not None and _KIND.get(label) != _KIND.get(theirs)):
            continue  # no entity, or a place for a person: no rival
        reason = f"wrong name: the context says this of {rival}, not {written}"
        out.append(Finding(a, b, "role", "conflict", (i, cs, ce), reason))
    return out
