"""Plain-language grounding: "Answer from this document: ...", "Use the article below."

A cue names a document; the text after it is the document when it is long
enough to be one (`MIN_WORDS`). A trailing short question is left as the query.
`asks_for_grounding` says whether a conversation expects a document at all,
so a grounded-looking request with no document found can be reported.
"""

from __future__ import annotations

import re

from .headers import QUESTION_RE
from .regions import Region, words

_DOC = (
    r"(?:documents?|texts?|passages?|articles?|context|information|excerpts?|reports?|sources?|"
    r"notes|materials?|transcripts?|emails?|pages?|records?|contract|policy|manual|"
    r"(?:pieces|snippets|chunks) of (?:retrieved )?(?:context|text|information)|search results|facts)"
)
_CUE_RE = re.compile(
    r"(?:"
    rf"(?:answer|respond|reply|summari[sz]e|rely)\b[^.\n:]{{0,40}}?\b(?:from|using|based on|on|in|with)\s+"
    rf"(?:only\s+)?(?:this|these|the following|the|the given|the provided|the attached)\s+(?:\w+\s+){{0,2}}?{_DOC}|"
    rf"(?:use|using|read|consider|given|based on|refer to|according to|with)\s+(?:only\s+)?(?:the\s+)?"
    rf"(?:following|below|this|these|provided|attached|given)\s+(?:\w+\s+){{0,3}}?{_DOC}|"
    rf"(?:summari[sz]e|read|review|analy[sz]e|proofread|rewrite|paraphrase|fact-check)\s+"
    rf"(?:this|these|the following|the|the given|the provided|the attached)\s+(?:\w+\s+){{0,2}}?{_DOC}|"
    rf"(?:use|using|read|consider|with|from)\s+the\s+{_DOC}\s+(?:below|that follows|provided below)|"
    rf"here (?:is|are) (?:the|a|an|some)\s+(?:\w+\s+){{0,3}}?{_DOC}|"
    rf"{_DOC}\s+(?:is|are)\s+(?:below|as follows|provided below|given below)"
    r")",
    re.I,
)
_GROUNDING_RE = re.compile(
    r"(?:according to|based (?:only |solely )?on|from|use|using|only|in|grounded in|cite)\s+(?:the\s+)?"
    r"(?:provided|given|following|attached|above|below|retrieved|supplied|uploaded|these|this|"
    rf"relevant|available)\s+(?:\w+\s+){{0,2}}?{_DOC}|"
    r"\bcite (?:the |your )?sources\b|\bdo not use (?:prior|outside|external) knowledge\b|"
    r"\bnot prior knowledge\b|"
    rf"\b(?:the|these|this)\s+{_DOC}\s+(?:above|below|provided|attached)\b|"
    r"^[ \t#*]*(?:context|documents?|sources?)[ \t*]*:[ \t*]*$|\[\s*(?:doc|source)\s*\d",
    re.I | re.M,
)
# "----------------" between the cue's sentence and the document (LangChain's stuff chain)
_RULE_RE = re.compile(r"^[ \t]*(?:-{3,}|={3,}|_{3,}|\*{3,})[ \t]*$", re.M)
MIN_WORDS = 12


def _trim_trailing_question(body: str) -> str:
    """Leave a final short question paragraph to the query."""
    paragraphs = re.split(r"\n\s*\n", body.rstrip())
    if len(paragraphs) > 1 and paragraphs[-1].strip().endswith("?") and words(paragraphs[-1]) < 60:
        return "\n\n".join(paragraphs[:-1])
    return body


def cued_documents(text: str) -> list[Region]:
    """The passage after the first document cue, when one is long enough to be a document."""
    for m in _CUE_RE.finditer(text):
        # The document starts after the cue's sentence: at a colon, a newline or a full stop.
        rest = text[m.end() :]
        stop = re.search(r"[:\n]|\.\s", rest[:160])
        start = m.end() + (stop.end() if stop else 0)
        rule = _RULE_RE.search(text, start)
        if rule is not None and words(text[start : rule.start()]) < 50:
            start = rule.end()  # what sat between the cue and the rule was more instructions
        end = len(text)
        if (q := QUESTION_RE.search(text, start)) is not None:
            end = q.start()
        kept = _trim_trailing_question(text[start:end])
        if words(kept) >= MIN_WORDS:
            return [Region(start, start + len(kept), kept.strip(), "cue")]
    return []


def asks_for_grounding(text: str) -> bool:
    """True when the text refers to documents or context the answer should come from."""
    return bool(_CUE_RE.search(text) or _GROUNDING_RE.search(text))
