"""Names the detector marks and the context never uses (Detection v3, item 1).

The token model often marks the right word of a wrong answer ("shipped with UPS", where
the tool result says FedEx; "off the Cornwall coast", where the release says Devon) and
the answer still passes, because the response head weighs that span like the spans it
also puts on function words. A proper name is content-bearing: when the model marks it
and neither the context nor the question uses it, the answer scores at least
`NOVEL_NAME_FLOOR`, above the uncertainty band, and the span says why.

What a faithful answer adds by itself is left alone:

* month and weekday names (the time and date checks judge those: "a Friday" worked out
  from a date);
* generic abbreviations (`GENERIC_ACRONYMS`: CEO, UTC, VAT ...) and an acronym of words
  the context uses ("EPC" for "Energy Performance Certificate");
* the place an airport code of the context stands for ("Heathrow" for "LHR",
  `text/airports.py`);
* a place that qualifies one the context names ("Memphis, Tennessee", where the context
  says "Memphis, TN"), and a name beside a code the context uses ("Amsterdam (AMS)",
  "New York JFK");
* lower-case words the tagger calls proper nouns ("skipper", "docs"), and the header row of
  a Markdown table the answer writes ("| Window | Length |").

Only the answer is parsed (spaCy's small English pipeline, as `roles` loads it); without
it the check does nothing. Measured on the customer-style development sets in
docs/benchmarks.md "Customer-style cases".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..text.airports import spelled_codes
from ..text.words import MONTHS, stem
from ..types import Span
from .roles import _nlp, _parse

#: The least score of an answer with a marked name of its own: above the threshold and
#: its uncertainty band, below a contradiction.
NOVEL_NAME_FLOOR = 0.65
WEEKDAYS = frozenset(
    [
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "mon",
        "tue",
        "tues",
        "wed",
        "thu",
        "thur",
        "thurs",
        "fri",
        "sat",
        "sun",
    ]
)
#: Abbreviations an answer may use without the context spelling them out.
GENERIC_ACRONYMS = frozenset(
    [
        "CEO",
        "CFO",
        "CTO",
        "COO",
        "CIO",
        "CMO",
        "CPO",
        "CISO",
        "VP",
        "SVP",
        "EVP",
        "HR",
        "IT",
        "PR",
        "QA",
        "UTC",
        "GMT",
        "CET",
        "CEST",
        "BST",
        "EST",
        "EDT",
        "PST",
        "PDT",
        "CST",
        "CDT",
        "ET",
        "PT",
        "AM",
        "PM",
        "FAQ",
        "PDF",
        "CSV",
        "URL",
        "API",
        "ID",
        "PIN",
        "OTP",
        "SMS",
        "ETA",
        "ASAP",
        "VAT",
        "GST",
        "USD",
        "EUR",
        "GBP",
        "UK",
        "US",
        "USA",
        "EU",
        "UN",
        "NHS",
        "TV",
        "DIY",
        "OK",
        "AI",
    ]
)
_ACRONYM = re.compile(r"[A-Z]{2,6}s?")
_WORD = re.compile(r"[^\W\d_]+")


def novel_names(
    context: Sequence[str], answer: str, query: str | None, spans: Sequence[Span]
) -> list[tuple[int, int]]:
    """(start, end) of each proper name of `answer` that an `unsupported` span marks and
    that neither `context` nor `query` uses (see the module doc)."""
    marked = [(s.start, s.end) for s in spans if s.label == "unsupported"]
    if not marked:
        return []
    nlp = _nlp()
    if nlp is None:
        return []
    source = "\n".join([*context, query or ""])
    lowered = source.casefold()
    words = {stem(w.casefold()) for w in _WORD.findall(source)}
    codes = {w for w in re.findall(r"\b[A-Z]{2,5}\b", source)}
    airports = spelled_codes(codes)
    doc = _parse(nlp, answer)
    out = []
    for tok in doc:
        a, b = tok.idx, tok.idx + len(tok.text)
        if not any(s <= a < e for s, e in marked):
            continue
        if not _candidate(tok) or _in_table_header(answer, a):
            continue
        if tok.text.casefold() in lowered or stem(tok.text.casefold()) in words:
            continue
        if _ACRONYM.fullmatch(tok.text) and (
            tok.text.rstrip("s") in GENERIC_ACRONYMS or _spelled_out(tok.text, source)
        ):
            continue
        if tok.text.casefold() in airports:
            continue  # "Heathrow" where the flight leaves "LHR"
        if _qualifies_known_place(tok, lowered) or _beside_code(tok, codes):
            continue
        out.append((a, b))
    return out


_TABLE_RULE = re.compile(r"\s*\|?\s*:?-{3,}")


def _in_table_header(answer: str, at: int) -> bool:
    """Whether `at` is in the header row of a Markdown table the answer writes ("| Window |
    Length |" over "|---|---|"): column names, not claims."""
    start = answer.rfind("\n", 0, at) + 1
    end = answer.find("\n", at)
    if end < 0 or "|" not in answer[start:end]:
        return False
    following = answer[end + 1 : answer.find("\n", end + 1) if "\n" in answer[end + 1 :] else None]
    return _TABLE_RULE.match(following) is not None


def _candidate(tok: Any) -> bool:
    text = tok.text
    return (
        tok.pos_ == "PROPN"
        and text.isalpha()
        and len(text) >= 3
        and text[0].isupper()
        and text.casefold() not in MONTHS
        and text.casefold() not in WEEKDAYS
    )


def _spelled_out(acronym: str, source: str) -> bool:
    """Whether `source` has consecutive words whose initials spell `acronym` (small
    words such as "of" and "and" may sit between them)."""
    letters = acronym.rstrip("s").casefold()
    initials = [w[0].casefold() for w in _WORD.findall(source) if w.casefold() not in _SMALL]
    n = len(letters)
    return any("".join(initials[i : i + n]) == letters for i in range(len(initials) - n + 1))


_SMALL = frozenset({"of", "and", "the", "for", "to", "in", "on", "&"})


def _qualifies_known_place(tok: Any, lowered: str) -> bool:
    """ "Memphis, Tennessee": a name right after a comma that follows a name the context
    uses, as a state or country qualifies a city."""
    doc = tok.doc
    i = tok.i
    while i > 0 and doc[i - 1].pos_ == "PROPN" and doc[i - 1].text[0].isupper():
        i -= 1  # the start of this name ("New Mexico")
    if i < 2 or doc[i - 1].text != ",":
        return False
    before = doc[i - 2]
    return before.pos_ == "PROPN" and before.text.casefold() in lowered


def _beside_code(tok: Any, codes: set[str]) -> bool:
    """A name next to a code the context uses ("Amsterdam (AMS)", "New York JFK"): the
    answer spells out what the code stands for."""
    doc = tok.doc
    lo, hi = max(0, tok.i - 2), min(len(doc), tok.i + 3)
    return any(doc[k].text in codes for k in range(lo, hi) if k != tok.i)


def with_reasons(
    spans: Sequence[Span], names: Sequence[tuple[int, int]], answer: str
) -> list[Span]:
    """`spans` with the reason of each span over a novel name stated."""
    out = []
    for s in spans:
        hits = [answer[a:b] for a, b in names if s.start <= a < s.end]
        if hits and not s.reason:
            s = Span(
                s.start,
                s.end,
                s.text,
                max(s.confidence, NOVEL_NAME_FLOOR),
                s.label,
                s.evidence,
                f"name not in the context: {', '.join(hits)}",
            )
        out.append(s)
    return out
