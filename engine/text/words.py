"""Word tokens with character offsets, light normalisation and stemming.

Shared by the lexical detector, the evidence matcher and the explainer so
that "present in the context" means the same thing everywhere.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from .memo import memoise_text

WordKind = Literal["word", "number", "cjk", "symbol"]

# Order matters: numbers first (so "3.5" and "1,000" stay whole), then
# single CJK ideographs/kana (no spaces to split on, one char = one token),
# then ordinary words with inner apostrophes/hyphens, then any other
# non-space symbol (emoji, punctuation) so every visible char is covered.
_TOKEN_RE = re.compile(
    r"(?P<number>\d+(?:[.,:/]\d+)*(?:st|nd|rd|th|s)?)"
    r"|(?P<cjk>[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af])"
    r"|(?P<word>[^\W\d_]+(?:['’\-][^\W\d_]+)*)"
    r"|(?P<symbol>[^\w\s])"
)


@dataclass(frozen=True)
class Word:
    """One token of a text: `text[start:end] == surface`."""

    start: int
    end: int
    surface: str
    kind: WordKind

    @property
    def norm(self) -> str:
        return normalize(self.surface, self.kind)


#: Texts up to this many characters have their tokens and content keys memoised (the
#: same sentences and passages are tokenised by many checks of one verification, and
#: contexts repeat across jobs): `TEXT_CACHE_SIZE` of them; longer ones, up to
#: `LONG_TEXT_CHARS` (a micro-batch's passages), in a smaller cache of `LONG_TEXT_CACHE_SIZE`;
#: longer still, worked out afresh, so that the memory held stays bounded. Words:
#: `WORD_CACHE_SIZE`.
CACHE_MAX_CHARS = 2_000
TEXT_CACHE_SIZE = 4_096
LONG_TEXT_CHARS = 20_000
LONG_TEXT_CACHE_SIZE = 64
WORD_CACHE_SIZE = 65_536


@memoise_text(  # Word is frozen: the cached words are shared
    CACHE_MAX_CHARS, TEXT_CACHE_SIZE, long_chars=LONG_TEXT_CHARS, long_size=LONG_TEXT_CACHE_SIZE
)
def tokenize(text: str) -> list[Word]:
    """All tokens of `text` in order, with exact character offsets (no gaps in visible text)."""
    out: list[Word] = []
    for m in _TOKEN_RE.finditer(text):
        kind = m.lastgroup
        assert kind is not None
        out.append(Word(m.start(), m.end(), m.group(), kind))  # type: ignore[arg-type]
    return out


def _strip_accents(s: str) -> str:
    decomposed = unicodedata.normalize("NFKD", s)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
    "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10",
    "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14",
    "fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18",
    "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50",
    "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90",
    "hundred": "100", "thousand": "1000", "million": "1000000", "billion": "1000000000",
    "first": "1", "third": "3", "fourth": "4", "fifth": "5",
    "sixth": "6", "seventh": "7", "eighth": "8", "ninth": "9", "tenth": "10",
    "dozen": "12",
}  # fmt: skip

MONTHS = {
    "january": "m1", "jan": "m1", "february": "m2", "feb": "m2", "march": "m3",
    "mar": "m3", "april": "m4", "apr": "m4", "may": "m5", "june": "m6", "jun": "m6",
    "july": "m7", "jul": "m7", "august": "m8", "aug": "m8", "september": "m9",
    "sep": "m9", "sept": "m9", "october": "m10", "oct": "m10", "november": "m11",
    "nov": "m11", "december": "m12", "dec": "m12",
}  # fmt: skip


def normalize_number(surface: str) -> str:
    """Canonical digits: "1,000" → "1000", "3.50" → "3.5", "1990s" → "1990", "21st" → "21"."""
    s = re.sub(r"(st|nd|rd|th|s)$", "", surface.lower())
    if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", s):
        s = s.replace(",", "")
    if re.fullmatch(r"\d+\.\d+", s):
        s = s.rstrip("0").rstrip(".")
    if re.fullmatch(r"0+\d+", s):
        s = s.lstrip("0")
    return s


@lru_cache(maxsize=WORD_CACHE_SIZE)
def stem(word: str) -> str:
    """A deliberately light English suffix stripper (plural, past, gerund, adverb).

    Over-stemming would make unrelated words match and hide hallucinations,
    so only the most regular inflections are removed.
    """
    w = word
    if len(w) <= 3:
        return w
    for suffix, repl in (
        ("ies", "y"), ("ied", "y"), ("sses", "ss"), ("ness", ""), ("ments", "ment"),
        ("ingly", ""), ("edly", ""), ("ing", ""), ("ed", ""), ("ly", ""),
        ("es", ""), ("s", ""),
    ):  # fmt: skip
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            if suffix == "s" and w.endswith(("ss", "us", "is")):
                return w
            w = w[: len(w) - len(suffix)] + repl
            break
    # "stopped" → "stopp" → "stop"; "running" → "runn" → "run"
    if len(w) >= 4 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]
    # "believe"/"believed" and "create"/"creating" meet at the stem without a final e.
    if len(w) >= 4 and w.endswith("e"):
        w = w[:-1]
    return w


@lru_cache(maxsize=WORD_CACHE_SIZE)
def normalize(surface: str, kind: WordKind = "word") -> str:
    """The comparison key of a token: casefolded, accent-free, number-canonical, stemmed."""
    if kind == "number":
        return normalize_number(surface)
    if kind != "word":
        return surface
    s = _strip_accents(surface.casefold()).replace("’", "'")
    if s.endswith("'s"):
        s = s[:-2]
    if s in NUMBER_WORDS:
        return NUMBER_WORDS[s]
    if s in MONTHS:
        return MONTHS[s]
    return stem(s.replace("-", ""))


def content_keys(text: str) -> set[str]:
    """Normalised keys of the content tokens (no stopwords, no symbols) of `text`."""
    # A new set (callers may change theirs), built from the keys in token order as
    # `{w.norm for w in tokenize(text) if is_content(w)}` builds it: the same set.
    return {k for k in _content_norms(text)}


@memoise_text(
    CACHE_MAX_CHARS, TEXT_CACHE_SIZE, long_chars=LONG_TEXT_CHARS, long_size=LONG_TEXT_CACHE_SIZE
)
def _content_norms(text: str) -> list[str]:
    return [w.norm for w in tokenize(text) if is_content(w)]


def is_content(w: Word) -> bool:
    if w.kind == "symbol":
        return False
    if w.kind == "word":
        return w.surface.casefold() not in STOPWORDS
    return True


# English function words plus very generic verbs/adverbs: their absence from
# the context says nothing about grounding.
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "although",
        "always",
        "am",
        "among",
        "an",
        "and",
        "another",
        "any",
        "anyone",
        "anything",
        "are",
        "aren't",
        "around",
        "as",
        "at",
        "be",
        "became",
        "because",
        "become",
        "becomes",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "can't",
        "cannot",
        "could",
        "couldn't",
        "did",
        "didn't",
        "do",
        "does",
        "doesn't",
        "doing",
        "don't",
        "done",
        "down",
        "during",
        "each",
        "either",
        "else",
        "etc",
        "even",
        "ever",
        "every",
        "few",
        "for",
        "from",
        "further",
        "get",
        "gets",
        "getting",
        "give",
        "given",
        "got",
        "had",
        "hadn't",
        "has",
        "hasn't",
        "have",
        "haven't",
        "having",
        "he",
        "he'd",
        "he'll",
        "he's",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "however",
        "i",
        "i'd",
        "i'll",
        "i'm",
        "i've",
        "if",
        "in",
        "into",
        "is",
        "isn't",
        "it",
        "it's",
        "its",
        "itself",
        "just",
        "least",
        "less",
        "let",
        "let's",
        "like",
        "made",
        "make",
        "makes",
        "many",
        "may",
        "me",
        "might",
        "more",
        "most",
        "much",
        "must",
        "mustn't",
        "my",
        "myself",
        "neither",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "often",
        "on",
        "once",
        "one",
        "only",
        "onto",
        "or",
        "other",
        "others",
        "otherwise",
        "ought",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "per",
        "perhaps",
        "rather",
        "really",
        "same",
        "several",
        "shall",
        "she",
        "she'd",
        "she'll",
        "she's",
        "should",
        "shouldn't",
        "since",
        "so",
        "some",
        "something",
        "such",
        "than",
        "that",
        "that's",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "there's",
        "therefore",
        "these",
        "they",
        "they'd",
        "they'll",
        "they're",
        "they've",
        "this",
        "those",
        "though",
        "through",
        "thus",
        "to",
        "too",
        "toward",
        "towards",
        "under",
        "until",
        "up",
        "upon",
        "us",
        "use",
        "used",
        "using",
        "very",
        "via",
        "was",
        "wasn't",
        "we",
        "we'd",
        "we'll",
        "we're",
        "we've",
        "were",
        "weren't",
        "what",
        "what's",
        "whatever",
        "when",
        "where",
        "whereas",
        "whether",
        "which",
        "while",
        "who",
        "who's",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "within",
        "without",
        "won't",
        "would",
        "wouldn't",
        "yes",
        "yet",
        "you",
        "you'd",
        "you'll",
        "you're",
        "you've",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "according",
        "based",
        "called",
        "known",
        "including",
        "include",
        "includes",
        "included",
        "said",
        "says",
        "say",
    ]
)
