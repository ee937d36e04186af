"""Sentence-level conflicts: a negation flip, an antonym, another member of a word class.

The answer sentence is aligned with its closest context sentence; when the two say
nearly the same words with the other polarity ("can be returned" against "cannot be
returned"), or one uses the opposite of the other's word (increased/decreased), it is
a contradiction. Called by `typed_checks.check`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..text.sentences import clause_spans, states_something
from ..text.words import content_keys, stem
from .alignment import LONG_SENTENCE_OVERLAP, SENTENCE_OVERLAP, is_long, sentence_around
from .antonyms import about_the_same, opposite_in
from .findings import Finding
from .word_classes import is_loose, members, word_class

NEGATION = re.compile(
    r"\b(?:not|no|never|none|nothing|nobody|cannot|without)\b|n['’]t\b", re.IGNORECASE
)
#: Words that state a negative without a negation word: "Brushes are excluded" says
#: what "does not cover brushes" says, so neither side of such a pair is a flip.
NEGATIVE_WORDS = re.compile(
    r"\b(?:exclud\w*|prohibit\w*|forbid\w*|bann(?:ed|ing)|void|invalid|unable|"
    r"refus\w*|denied|den(?:y|ies)|lack\w*|fail\w*|neither|nor|non-?refundable|"
    r"unavailable|ineligible|unsuitable|except|barred|disallow\w*|abolish\w*|scrap(?:ped|s)?|"
    r"expir\w*|laps(?:e|es|ed)|time[sd]?\s+out|"
    r"rather\s+than|instead\s+of|other\s+than|free\s+(?:of|from))\b",
    re.IGNORECASE,
)


def _negated(words: str) -> re.Pattern[str]:
    """A negation followed within four words by one of `words`."""
    return re.compile(
        r"(?:\b(?:not|no|never|cannot)\b|n['’]t\b)(?:\W+\w+){0,4}?\W+(?:" + words + r")\b",
        re.IGNORECASE,
    )


#: A negated excess is an upper bound and a negated shortfall a lower one: "do not use
#: for more than 10 days" says "up to ten days", "no component below 6.0" says "each at
#: least 6.0". Pairs of (negated form, bound).
_BOUNDS = (
    (
        _negated(r"more\s+than|exceed\w*|longer\s+than|over|beyond|above|in\s+excess\s+of"),
        re.compile(
            r"\b(?:up\s+to|at\s+most|no\s+more\s+than|not\s+more\s+than|a\s+maximum\s+of|"
            r"maximum|max|within|or\s+(?:less|fewer)|limit(?:ed)?\s+(?:to|of))\b",
            re.IGNORECASE,
        ),
    ),
    (
        _negated(r"less\s+than|fewer\s+than|below|under|lower\s+than|short\s+of"),
        re.compile(
            r"\b(?:at\s+least|a\s+minimum\s+of|minimum|min|or\s+(?:more|above|higher|over)|"
            r"no\s+less\s+than|not\s+less\s+than)\b",
            re.IGNORECASE,
        ),
    ),
)
#: Negation words inside fixed phrases that negate nothing: "no later than 30 days"
#: is "within 30 days"; ", not by us" after a clause rules out another party, it does
#: not deny the clause.
_IDIOM = re.compile(
    r"\b(?:no|not)\s+(?:later|earlier|sooner|more|less|fewer|longer|shorter)\s+than\b"
    r"|\bnot\s+only\b|\bno\s+matter\b|\bno\s+doubt\b|\bnothing\s+but\b"
    r"|,\s*(?:but\s+)?not\s+(?:by|from|for|to|in|on|at|with|through|via)\b",
    re.IGNORECASE,
)
#: Words between a negation and what it negates ("cannot *be* returned").
_SKIP_AFTER_NEGATION = frozenset(
    {"be", "been", "being", "is", "are", "was", "were", "a", "an", "the", "any", "yet",
     "always", "ever", "currently", "usually", "normally", "to", "have", "has", "get", "got",
     "do", "does", "did", "very", "so", "too", "also", "necessarily"}
)  # fmt: skip
_AUX = re.compile(
    r"\b(?:is|are|was|were|can|could|will|would|has|have|had|does|do|did|should|must|may)\b",
    re.IGNORECASE,
)
#: A clause that opens with a condition or a reason states the user's case ("Because
#: you aren't a Plus member, ..."), not a claim about the context.
_CONDITION = re.compile(r"\s*(?:because|since|as|if|unless|when|whenever)\b", re.IGNORECASE)
_PARTICLE = re.compile(r"\s*(?:no|yes)\b\s*[,.!:;\-–—]", re.IGNORECASE)


def _clause_keys(context: Sequence[str]) -> list[tuple[int, int, int, set[str]]]:
    """(passage, start, end, content keys) of every context clause, computed once."""
    return [
        (i, s, e, content_keys(passage[s:e]))
        for i, passage in enumerate(context)
        for s, e in clause_spans(passage)
    ]


def _best_sentence(
    keys: set[str], clauses: list[tuple[int, int, int, set[str]]]
) -> tuple[float, int, int, int] | None:
    best = None
    for i, s, e, theirs in clauses:
        if not keys or not theirs:
            continue
        # Relative to the shorter clause: an answer that restates a context clause
        # and adds something ("... within 30 days") still restates it.
        shared = len(keys & theirs)
        share = shared / min(len(keys), len(theirs)) if shared >= 2 else 0.0
        if best is None or share > best[0]:
            best = (share, i, s, e)
    return best


def sentence_findings(context: Sequence[str], answer: str) -> list[Finding]:
    out: list[Finding] = []
    needed = LONG_SENTENCE_OVERLAP if is_long(context) else SENTENCE_OVERLAP
    clauses = _clause_keys(context)
    # A class word the context uses elsewhere may be aligned with the wrong clause (a
    # timetable names every weekday): only a word it never uses is a contradiction.
    used = {w.lower() for p in context for w in re.findall(r"[A-Za-z]+", p)}
    for s, e in clause_spans(answer):
        sentence = answer[s:e]
        keys = content_keys(sentence)
        best = _best_sentence(keys, clauses)
        if best is None or best[0] < needed:
            continue
        share, i, cs, ce = best
        evidence = context[i][cs:ce]
        # A leading "No," answers the question; it negates nothing in the sentence.
        particle = _PARTICLE.match(sentence)
        ours = _negation(sentence, particle.end() if particle else 0)
        flipped = (i, cs, ce) if _flips(sentence, ours, context[i], evidence) else None
        if flipped is not None:
            i, cs, ce = flipped
            target = ours or _AUX.search(sentence)
            a, b = (s + target.start(), s + target.end()) if target else (s, e)
            what = "negates what the context states" if ours else "affirms what the context negates"
            out.append(
                Finding(
                    a, b, "negation", "conflict", (i, cs, ce), f"negation flip: the answer {what}"
                )
            )
            continue
        their_words = {stem(w.lower()) for w in re.findall(r"[A-Za-z]+", evidence)}
        their_lower = {w.lower() for w in re.findall(r"[A-Za-z]+", evidence)}
        for m in re.finditer(r"[A-Za-z]+", sentence):
            word = m.group().lower()
            opposite = opposite_in(word, their_words)
            if opposite is not None and about_the_same(
                sentence, m.start(), m.end(), evidence, opposite
            ):
                said = next((w for w in their_lower if stem(w) == opposite), opposite)
                reason = f"antonym: the answer says '{m.group()}' where the context says '{said}'"
                out.append(
                    Finding(s + m.start(), s + m.end(), "antonym", "conflict", (i, cs, ce), reason)
                )
                continue
            rival = _rival(word, _members_of(evidence), context[i])
            if rival is not None and not _hedged(sentence, m.start()) and not _uses(used, word):
                reason = f"different {word_class(word)}: the answer says '{m.group()}' where the context says '{rival}'"
                out.append(
                    Finding(s + m.start(), s + m.end(), "class", "conflict", (i, cs, ce), reason)
                )
    return out


def _flips(sentence: str, ours: re.Match[str] | None, passage: str, evidence: str) -> bool:
    """Whether `sentence` negates what `evidence` (a clause of `passage`) states, or
    states what it negates, about the words they share."""
    theirs = _negation(evidence)
    return (
        bool(ours) != bool(theirs)
        and states_something(evidence)  # not a table row or a heading
        and not _CONDITION.match(sentence)
        and not _structured(passage)
        and not _same_polarity(sentence, evidence)
        and (
            _negates_shared_words(sentence, ours, evidence)
            if ours
            else theirs is not None and _negates_shared_words(evidence, theirs, sentence)
        )
    )


def _negation(text: str, pos: int = 0) -> re.Match[str] | None:
    """The first negation word of `text` from `pos` that is not part of an idiom."""
    idioms = [(m.start(), m.end()) for m in _IDIOM.finditer(text)]
    for m in NEGATION.finditer(text, pos):
        if not any(a <= m.start() < b for a, b in idioms):
            return m
    return None


def _negates_shared_words(negated_side: str, negation: re.Match[str], other: str) -> bool:
    """Whether what one side negates is a word the other side says: "cannot be returned"
    against "can be returned" is a flip; "are not allowed on the trip" against "must
    stay at home" restates it in other words. `negation` is the match in `negated_side`."""
    following = re.findall(r"[A-Za-z]+", negated_side[negation.end() :])[:6]
    word = next((w.lower() for w in following if w.lower() not in _SKIP_AFTER_NEGATION), None)
    if word is None:
        return False
    return stem(word) in {stem(w.lower()) for w in re.findall(r"[A-Za-z]+", other)}


def _structured(passage: str) -> bool:
    """A JSON or key: value passage: its "clauses" are fields, not statements to negate."""
    stripped = passage.lstrip()
    return stripped.startswith(("{", "[")) or stripped.count('":') >= 2


def _same_polarity(sentence: str, evidence: str) -> bool:
    """Whether a clause pair that differs in negation words still says the same, or
    nothing comparable: one side negates with a word ("excluded", "debt-free"), one
    side is a bound (a negated excess, "not more than 10 days", or a negated
    shortfall, "no component below 6.0")."""
    if NEGATIVE_WORDS.search(sentence) or NEGATIVE_WORDS.search(evidence):
        return True
    if _CHECK_THAT.search(sentence) or _CHECK_THAT.search(evidence):
        return True
    for negated, bound in _BOUNDS:
        if (negated.search(evidence) and bound.search(sentence)) or (
            negated.search(sentence) and bound.search(evidence)
        ):
            return True
    # "Do not give more than 4 tablets in 24 hours" sets a limit; whether an answer
    # keeps to it is for the value checks, not a flip of what it says.
    # An answer that says the excess itself ("give more than 4") still flips it.
    for one, other in ((evidence, sentence), (sentence, evidence)):
        if _LIMIT.search(one) and not _EXCESS.search(other):
            return True
    # "debt-free" says "no debt".
    return any(
        re.search(rf"\b(?:no|without)\s+{re.escape(m.group(1))}", other, re.IGNORECASE)
        for one, other in ((sentence, evidence), (evidence, sentence))
        for m in _FREE.finditer(one)
    )


_LIMIT = _negated(
    r"(?:more|less|fewer|longer|shorter)\s+than\s+(?:\d|one|two|three|four|five|six|seven|"
    r"eight|nine|ten|twelve)|exceed\w*\s+(?:\d|one|two|three|four|five|six|seven|eight|nine|ten)"
)
_EXCESS = re.compile(r"\b(?:(?:more|less|fewer|longer|shorter)\s+than|exceed\w*)", re.IGNORECASE)
_FREE = re.compile(r"\b([a-z]+)-free\b", re.IGNORECASE)


#: An instruction to check something states no fact either way: "check that the hose
#: is not kinked" says what "check the hose for kinks" says.
_CHECK_THAT = re.compile(
    r"\b(?:check|make\s+sure|ensure|verify|confirm|see)\b(?:\s+(?:that|whether|if|for))?",
    re.IGNORECASE,
)

_HEDGE = re.compile(
    r"\b(?:chance|chances|risk|probability|likelihood|possibility|odds|hint|threat)\s+of\s+"
    r"(?:\w+\s+)?$",
    re.IGNORECASE,
)


def _uses(used: set[str], word: str) -> bool:
    """Whether the context uses `word` or the noun it is made from ("monthly" where the
    context says "per month", "annually" where it says "annual")."""
    roots = {word, word.removesuffix("ly"), "day" if word == "daily" else word}
    return not roots.isdisjoint(used)


def _hedged(text: str, start: int) -> bool:
    """Whether the word at `start` is named as a possibility, not stated: "a 10% chance
    of rain" says nothing against "partly cloudy"."""
    return _HEDGE.search(text[max(0, start - 40) : start]) is not None


#: A word of a hyphenated compound ("double-blind", "full-time") is not its class's
#: member: "double-blind" says nothing of an extent.
_FREE_WORD = re.compile(r"(?<![-\w])[A-Za-z]+(?![-\w])")
#: What "half" restates: "50% of pay" is half pay.
_HALF = re.compile(r"\b50\s?(?:%|per\s?cent\b)", re.IGNORECASE)


def _members_of(text: str) -> set[str]:
    """The lower-case words of `text` that can stand for a member of a closed class."""
    return {w.lower() for w in _FREE_WORD.findall(text)}


def _rival(word: str, theirs: set[str], said: str = "") -> str | None:
    """Another member of `word`'s closed class among `theirs`, when `word` is not (and
    "half" not where `said`, the context, states 50%)."""
    name = word_class(word)
    if name is None or word in theirs or (word == "half" and _HALF.search(said)):
        return None
    rivals = sorted(theirs & members(name))
    return rivals[0] if rivals else None


def _around(text: str, m: re.Match[str]) -> str:
    """The word `m` with the hyphens and letters joined to it ("double-blind")."""
    lo, hi = m.start(), m.end()
    while lo > 0 and (text[lo - 1].isalnum() or text[lo - 1] == "-"):
        lo -= 1
    while hi < len(text) and (text[hi].isalnum() or text[hi] == "-"):
        hi += 1
    return text[lo:hi]


def class_findings(context: Sequence[str], answer: str, taken: Sequence[Finding]) -> list[Finding]:
    """In a short context, a loose-class word the context never uses, where it uses
    another member of that class ("cloudy" against a forecast's "sunny")."""
    if is_long(context):
        return []
    words = [(i, m) for i, p in enumerate(context) for m in re.finditer(r"[A-Za-z]+", p)]
    used = {m.group().lower() for _, m in words}
    out: list[Finding] = []
    for m in re.finditer(r"[A-Za-z]+", answer):
        word = m.group().lower()
        name = word_class(word)
        if name is None or not is_loose(name) or _uses(used, word) or _hedged(answer, m.start()):
            continue
        if any(f.start < m.end() and m.start() < f.end for f in taken):
            continue  # the clause check already judged it
        if word == "half" and any(_HALF.search(p) for p in context):
            continue  # "half pay" for "50% of pay"
        rivals = [
            (i, r)
            for i, r in words
            if r.group().lower() in members(name) and _FREE_WORD.fullmatch(_around(context[i], r))
        ]
        if not rivals:
            continue
        i, r = rivals[0]
        lo, hi = sentence_around(context[i], r.start(), r.end())
        reason = (
            f"different {name}: the answer says '{m.group()}' where the context says '{r.group()}'"
        )
        out.append(Finding(m.start(), m.end(), "class", "conflict", (i, lo, hi), reason))
    return out
