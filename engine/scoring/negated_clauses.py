"""A negation the answer drops from a context clause it otherwise restates.

`negations.sentence_findings` aligns an answer sentence with its closest context
sentence and compares their polarity; an answer clause that restates a short negated
context clause and then adds to it ("Pre-existing conditions are covered under PawSure
Complete, up to £7,000 per condition", against "Pre-existing conditions are not
covered.") aligns less well than that check requires. Two narrower checks catch it:

* **a dropped negation:** every content word of a negated context clause (at least
  `MIN_WORDS` of them, the negation aside) is in one answer clause that negates nothing
  and says nothing negative in other words ("excluded", "non-refundable");
* **a dropped prefix:** the context says "non-refundable" (or "non-transferable" ...),
  and an answer clause says "refundable" without a negation, about the same thing (it
  shares another content word with the context's sentence).

Called by `typed_checks.check`; clauses already judged by another finding are left
alone. Structured passages (JSON fields) are not statements to negate.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..text.sentences import clause_spans, split_sentences
from ..text.words import content_keys, stem
from .findings import Finding
from .negations import _BOUNDS, NEGATIVE_WORDS, _negation, _same_polarity, _structured

#: A negated context clause must have this many content words besides the negation.
MIN_WORDS = 3
#: "non-" before an adjective ("non-refundable", "non-transferable"), not before a noun
#: ("non-birth parents", "non-members"), whose plain form names someone else.
_PREFIXED = re.compile(r"\bnon[-\s]?([a-z]{2,}(?:able|ible|ive|ant|ent|al))\b", re.IGNORECASE)
_VERB_NEGATION = re.compile(r"not|never|cannot|n['’]t", re.IGNORECASE)
_NEGATION_KEYS = frozenset({"not", "no", "never", "cannot", "none", "nothing", "nobody"})
_OPEN_CLAUSE = re.compile(
    r"\b(?:if|unless|only|until|except|whether|when|once|after|before)\b", re.IGNORECASE
)


def negated_clause_findings(
    context: Sequence[str], answer: str, taken: Sequence[Finding] = ()
) -> list[Finding]:
    """A `negation` conflict for each answer clause that restates a negated context
    clause without its negation, or a "non-" word without its prefix."""
    clauses = [
        (s, e)
        for s, e in clause_spans(answer)
        if not any(f.start < e and s < f.end for f in taken)
        and _negation(answer[s:e]) is None
        and not NEGATIVE_WORDS.search(answer[s:e])
    ]
    if not clauses:
        return []
    sentences = [(p.start, p.end) for p in split_sentences(answer)]
    out: list[Finding] = []
    for i, passage in enumerate(context):
        if _structured(passage):
            continue
        for sentence in split_sentences(passage):
            for cs, ce in clause_spans(sentence.text):
                evidence = (i, sentence.start + cs, sentence.start + ce)
                text = sentence.text[cs:ce]
                for s, e in clauses:
                    if any(f.start < e and s < f.end for f in out):
                        continue
                    mine = answer[s:e]
                    around = next((answer[a:b] for a, b in sentences if a <= s < b), mine)
                    # "check that it is not kinked" and "up to" for "not over" keep the
                    # negation's sense (`_same_polarity`)
                    dropped = _drops_negation(text, mine) and not _same_polarity(mine, text)
                    if dropped or _drops_prefix(text, sentence.text, mine, around):
                        out.append(
                            Finding(
                                s,
                                e,
                                "negation",
                                "conflict",
                                evidence,
                                f"negation dropped: the context says {text.strip()!r}",
                            )
                        )
    return out


def _drops_negation(theirs: str, mine: str) -> bool:
    """`theirs` negates a verb ("are not covered", "can't be"), with no condition or bound,
    and `mine` says every other content word of it."""
    negation = _negation(theirs)
    if negation is None or not _VERB_NEGATION.fullmatch(negation.group(0)):
        return False  # "no early repayment charges" may hold for one period only
    if NEGATIVE_WORDS.search(theirs) or _OPEN_CLAUSE.search(theirs):
        return False  # a condition ("not ... unless") is no plain negative statement
    if any(negated.search(theirs) for negated, _ in _BOUNDS):
        return False  # "do not give more than 4" is a limit ("the limit is four")
    if not re.search(r"[A-Za-z]", theirs[negation.end() :]):
        return False  # a table cell ("…,£15.00,no"), not a statement
    keys = content_keys(theirs) - _NEGATION_KEYS
    return len(keys) >= MIN_WORDS and keys <= content_keys(mine)


def _drops_prefix(theirs: str, sentence: str, mine: str, around: str) -> bool:
    """`theirs` says "non-X", `mine` says "X" plainly, and the answer's sentence
    (`around`) shares another content word with the context's `sentence`."""
    for m in _PREFIXED.finditer(theirs):
        word = stem(m.group(1).casefold())
        said = [w for w in re.findall(r"[A-Za-z]+", mine) if stem(w.casefold()) == word]
        if not said or re.search(rf"\bnon[-\s]?{re.escape(said[0])}", mine, re.IGNORECASE):
            continue
        others = content_keys(sentence) - content_keys(m.group(0))
        if others & content_keys(around):
            return True
    return False
