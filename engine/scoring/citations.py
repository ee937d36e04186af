"""Rule-based citation checks: `[id]` markers against the passages actually given.

A citation to a passage that does not exist is a hallucination in its own
right, and a long factual sentence without a citation (in an answer that
otherwise cites) is a weaker warning sign. Both feed a rule risk in [0, 1].
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text.sentences import split_sentences
from ..types import CitationReport, DetectionInput

# "[1]", "[1, 2]", "[doc-3; doc-4]", "[Source 2]"; not markdown links "[text](url)"
# and not footnote-style "[^1]".
_MARKER_RE = re.compile(r"\[(?!\^)([^\[\]\n]{1,60})\](?!\()")
_ID_RE = re.compile(r"^(?:(?:source|doc(?:ument)?|passage|ref)\s*)?#?\s*([\w.\-:]{1,40})$", re.I)
_WORD_RE = re.compile(r"\w+")
INVALID_FLOOR = 0.5


@dataclass(frozen=True)
class CitationPolicy:
    """How strict the citation rules are.

    `require_citations` makes the check apply even to answers without any
    marker (every long sentence then counts as uncited).
    """

    require_citations: bool = False
    min_words: int = 8  # sentences shorter than this need no citation
    uncited_weight: float = 0.5  # an uncited sentence is weaker evidence than a bad citation


def parse_marker(body: str, known: set[str] | frozenset[str] = frozenset()) -> list[str] | None:
    """Ids inside one marker, or None when the bracket is not a citation ("[sic]", "[edit]").

    A part is an id when it names a known passage, or looks like one (`_id_like`). An id written with a
    prefix ("Source 2") is reduced to the known id it names ("2") when one matches.
    """
    ids = []
    for raw in re.split(r"[,;]|\band\b", body):
        part = raw.strip()
        if not part:
            continue
        if part in known:
            ids.append(part)
            continue
        m = _ID_RE.match(part)
        if m is None or not _id_like(part, known):
            return None
        ids.append(m.group(1) if m.group(1) in known else part)
    return ids or None


def _id_like(part: str, known: set[str] | frozenset[str]) -> bool:
    """Digits ("2", "Source 2"), an id-style separator ("doc-c"), or the shape of a
    known id ("docC" when "docA" exists); plain words ("sic", "edit") are not ids."""
    if any(c.isdigit() for c in part):
        return True
    if " " in part:
        return False
    if any(c in part for c in "-_:."):
        return True
    return any(len(k) >= 4 and k[:3].casefold() == part[:3].casefold() for k in known)


def citation_markers(
    text: str, known: set[str] | frozenset[str] = frozenset()
) -> list[tuple[int, int, list[str]]]:
    """(start, end, ids) of every citation marker in `text`, in order."""
    out = []
    for m in _MARKER_RE.finditer(text):
        ids = parse_marker(m.group(1), known)
        if ids is not None:
            out.append((m.start(), m.end(), ids))
    return out


def check_citations(item: DetectionInput, policy: CitationPolicy | None = None) -> CitationReport:
    """Markers found, invalid ids, uncited long sentences (answer offsets), ratio and risk.

    `citation_ratio` is the share of long sentences carrying a marker; `risk`
    is `1 − (1 − invalid_rate)·(1 − uncited_weight·uncited_rate)` with `invalid_rate` at least
    `INVALID_FLOOR` once any id is invalid; 0 when not applicable.
    """
    policy = policy or CitationPolicy()
    known = set(item.passage_ids or (str(i + 1) for i in range(len(item.context))))
    text = item.response
    markers = citation_markers(text, known)
    applicable = bool(markers) or policy.require_citations
    report = CitationReport(markers=len(markers), applicable=applicable)
    if not applicable:
        return report

    cited_ids = [i for _, _, ids in markers for i in ids]
    invalid = [i for i in cited_ids if i not in known]
    report.invalid = list(dict.fromkeys(invalid))

    long_sentences = cited = 0
    for sentence in split_sentences(text):
        body = _MARKER_RE.sub(" ", sentence.text)
        if len(_WORD_RE.findall(body)) < policy.min_words:
            continue
        long_sentences += 1
        if any(sentence.start <= s < sentence.end for s, _, _ in markers):
            cited += 1
        else:
            report.uncited_sentences.append((sentence.start, sentence.end))
    report.citation_ratio = cited / long_sentences if long_sentences else (1.0 if markers else 0.0)

    invalid_rate = len(invalid) / len(cited_ids) if cited_ids else 0.0
    if invalid:
        # One fabricated source is serious even when the other citations are fine.
        invalid_rate = max(invalid_rate, INVALID_FLOOR)
    uncited_rate = len(report.uncited_sentences) / long_sentences if long_sentences else 0.0
    report.risk = 1.0 - (1.0 - invalid_rate) * (1.0 - policy.uncited_weight * uncited_rate)
    return report
